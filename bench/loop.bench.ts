/**
 * Agent-loop overhead (#6): a plain answer and a tool round trip through the runtime, with an
 * instant scripted model, a no-op tool and SQLite persistence on (WAL, a real file), against a
 * baseline of the same model streams and tool call made directly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { viaProvider } from '../src/main/core/models/access.js';
import type { ModelRequest } from '../src/main/core/models/types.js';
import { AgentRuntime } from '../src/main/core/runtime/runtime.js';
import { RunStore } from '../src/main/core/runtime/store.js';
import { openDatabase } from '../src/main/core/storage/database.js';
import type { ToolHost } from '../src/main/core/tools/host.js';
import { userText } from '../src/shared/messages.js';
import { noTools, UNGOVERNED } from '../test/support/runtime-hooks.js';
import { ScriptedProvider, type ScriptedReply } from '../test/support/scripted-provider.js';
import { measure, report } from './lib.js';

const answer: ScriptedReply = { text: ['Hello', ' there'] };
const toolTurn = (request: ModelRequest): ScriptedReply =>
  request.messages.at(-1)?.content.some((b) => b.type === 'tool_result')
    ? answer
    : { toolCalls: [{ name: 'noop', input: { n: 1 } }] };

const noop: ToolHost = {
  definitions: () => [{ name: 'noop', parameters: { type: 'object', properties: {} } }],
  isReadOnly: () => true,
  validate: async () => undefined,
  execute: async () => ({ content: 'ok' }),
  prepare: () => undefined,
};

async function drain(events: AsyncIterable<unknown>) {
  for await (const _ of events) {
    // consume
  }
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-loop-'));
  const db = openDatabase(path.join(dir, 'bench.db'), { vectors: false });
  const store = new RunStore(db);
  const plain = new AgentRuntime({
    ...UNGOVERNED,
    tools: noTools,
    store,
    model: viaProvider(new ScriptedProvider(() => answer), 'm'),
  });
  const withTool = new AgentRuntime({
    ...UNGOVERNED,
    store,
    model: viaProvider(new ScriptedProvider(toolTurn), 'm'),
    tools: noop,
  });
  const direct = new ScriptedProvider(() => answer);
  const request: ModelRequest = { messages: [userText('hi')] };

  const results = await measure(
    [
      { name: 'baseline: one model stream', fn: () => drain(direct.stream('m', request)) },
      {
        name: 'baseline: two streams + one tool call',
        fn: async () => {
          await drain(direct.stream('m', request));
          await noop.execute(
            { id: 'c', name: 'noop', input: {} },
            { signal: new AbortController().signal, runId: 'r' as never, stepId: 's' as never },
          );
          await drain(direct.stream('m', request));
        },
      },
      // A new session per run: the figure is the loop's, not that of an ever longer history.
      { name: 'runtime: plain answer (1 turn)', fn: () => plain.start({ text: 'hi' }).done },
      {
        name: 'runtime: tool round trip (2 turns)',
        fn: () => withTool.start({ text: 'hi' }).done,
      },
    ],
    { samples: 15, iterations: 40, warmup: 2 },
  );
  report('agent loop, scripted model, no-op tool, SQLite on', results);
  const [one, two, turn, trip] = results.map((r) => r.medianNs / 1000);
  console.log(
    `  overhead per plain turn: ${((turn ?? 0) - (one ?? 0)).toFixed(0)} µs; per tool round trip: ${((trip ?? 0) - (two ?? 0)).toFixed(0)} µs`,
  );
  db.close();
  await rm(dir, { recursive: true, force: true });
}
