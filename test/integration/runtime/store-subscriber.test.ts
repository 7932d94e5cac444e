/**
 * The run store is a subscriber of a run's facts, ahead of everyone who reads its events: when
 * any listener (the audit, telemetry, a surface) sees an event, what it tells is already on
 * disk. Checked at each event of a run with a tool call, through a second connection to the
 * same SQLite file.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { RunEvent } from '../../../src/main/core/runtime/events.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import type { RunId } from '../../../src/main/core/terms.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { tempStore, toolHost } from './harness.js';

let temp: Awaited<ReturnType<typeof tempStore>>;
beforeEach(async () => {
  temp = await tempStore();
});
afterEach(() => temp.cleanup());

it('each event is on record before any listener sees it', async () => {
  const reader = new RunStore(openDatabase(temp.file, { vectors: false }));
  const seen: string[] = [];
  const check = (event: RunEvent) => {
    const run = reader.getRun(event.run_id as RunId);
    const calls = run ? reader.toolCalls(run.id) : [];
    const call = (id: string) => calls.find((row) => row.callId === id);
    switch (event.type) {
      case 'run.started':
        expect(run?.goal).toBe('note it');
        break;
      case 'state.changed':
        expect(run?.state).toBe(event.to);
        break;
      case 'tool.requested':
        expect(call(event.call.id)?.status).toBe('requested');
        break;
      case 'tool.started':
        expect(call(event.call_id)?.status).toBe('started');
        break;
      case 'tool.finished':
        expect(call(event.call_id)).toMatchObject({ status: 'completed', result: event.output });
        break;
      case 'model.finished':
        // The reply is in the tree and the spending on the run.
        expect(reader.branch(run?.lastMessageId ?? null).at(-1)?.message.role).toBe('assistant');
        expect(run?.turns).toBeGreaterThan(0);
        break;
      case 'run.finished':
        expect(run).toMatchObject({ outcome: event.outcome, reason: event.reason, turns: 2 });
        expect(reader.steps(run?.id as RunId).every((step) => step.endedAt !== null)).toBe(true);
        break;
    }
    seen.push(event.type);
  };
  const { host } = toolHost({ 'notes/add': { run: () => ({ content: 'saved' }) } });
  const runtime = new AgentRuntime({
    ...UNGOVERNED,
    store: temp.store,
    model: viaProvider(
      new ScriptedProvider([
        { toolCalls: [{ name: 'notes/add', input: { text: 'milk' } }] },
        { text: ['Noted.'] },
      ]),
      'm',
    ),
    tools: host,
    onEvent: check,
  });
  const handle = runtime.start({ text: 'note it' });
  const result = await handle.done;
  reader.db.close();
  expect(result.outcome).toBe('completed');
  expect(seen).toEqual(
    expect.arrayContaining(['tool.requested', 'tool.started', 'tool.finished', 'run.finished']),
  );
});
