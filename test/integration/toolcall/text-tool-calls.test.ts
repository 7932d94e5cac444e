/**
 * Tool calls from a model that only writes text: an OpenAI-compatible server (real HTTP on
 * 127.0.0.1) answers with `@fs/read{...}` lines; the wrapper turns them into tool uses the real
 * registry runs, and the next request carries the results as text. And on the tiny local model,
 * the compact language's grammar makes every reply an answer or a parseable call.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { LocalModelProvider } from '../../../src/main/core/local/provider.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { HttpProvider } from '../../../src/main/core/models/http-provider.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import { describeTools, withTextToolCalls } from '../../../src/main/core/models/text-tools.js';
import type { ModelEvent } from '../../../src/main/core/models/types.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { toolCallsOf } from '../../../src/shared/messages.js';

import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';

let dir = '';
let server: VendorServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-text-tools-'));
  await writeFile(path.join(dir, 'notes.md'), 'buy milk\n');
  server = await startVendorServer('/v1');
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** An OpenAI-compatible server's model, with tool calls written as text. */
const plainTextProvider = () =>
  withTextToolCalls(
    new HttpProvider({
      id: providerId('plain'),
      protocol: 'openai-compatible',
      endpoint: server.url,
      auth: 'none',
      secrets: { resolve: async () => undefined },
    }),
  );

function registry() {
  const tools = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) tools.register(tool);
  return tools;
}

describe('text tool calls over a text-only provider', () => {
  it('calls in the reply run through the registry; results go back as text', async () => {
    server.reply(
      {
        kind: 'sse',
        frames: openaiFrames({ text: ['Let me look.\n@fs/re', 'ad{path="notes.md"}\n'] }),
        chunkBytes: 7,
      },
      { kind: 'sse', frames: openaiFrames({ text: ['You need milk.'] }) },
    );
    const provider = plainTextProvider();
    const db = openDatabase(path.join(dir, 'a.db'), { vectors: false });
    const runtime = new AgentRuntime({
      ...UNGOVERNED,
      store: new RunStore(db),
      model: viaProvider(provider, 'plain-model'),
      tools: registry().host({ allow: ['fs/read', 'fs/list'], workspace: dir }),
      system: () => 'Be brief.',
    });
    const handle = runtime.start({ text: 'what do I need?' });
    const shown: string[] = [];
    for await (const event of handle.events.all())
      if (event.type === 'model.delta') shown.push(event.text);
    const result = await handle.done;
    db.close();

    expect(result.outcome).toBe('completed');
    // The call line never streamed as prose; the prose did.
    expect(shown.join('')).toBe('Let me look.\nYou need milk.');
    const [first, second] = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(first?.tools).toBeUndefined();
    const sent = (first?.messages ?? []) as Array<{ role: string; content: string }>;
    const system = sent[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('Be brief.');
    expect(system?.content).toContain('- @fs/read{path=string; offset=integer?; limit=integer?}');
    expect(system?.content).not.toContain('fs__read');
    const messages = second?.messages as Array<{ role: string; content: unknown }>;
    expect(JSON.stringify(messages)).toContain('@fs/read{path=\\"notes.md\\"}');
    expect(JSON.stringify(messages)).toContain('Result of @fs/read:\\nbuy milk');
    expect(JSON.stringify(messages)).not.toContain('tool_calls');
  });

  it('a line that opens like a call but does not parse runs nothing and is shown as text', async () => {
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['@fs/read{path=}\n'] }) });
    const provider = plainTextProvider();
    const events: ModelEvent[] = [];
    for await (const event of provider.stream('m', {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: registry().modelTools(['fs/read']),
    }))
      events.push(event);
    const finish = events.find((e) => e.type === 'finish');
    expect(finish?.type === 'finish' && toolCallsOf(finish.message)).toEqual([]);
    expect(finish?.type === 'finish' && finish.stopReason).not.toBe('tool_use');
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    expect(text).toBe('@fs/read{path=}\n');
  });

  it('describes each tool with its arguments, optional ones marked', () => {
    const text = describeTools(registry().modelTools(['sys/exec']));
    expect(text).toMatch(/^- @sys\/exec\{command=string; args=array\?/m);
  });
});

describe('the compact language on the tiny local model, under its grammar', () => {
  it('every reply is calls of allowed tools with the right keys and types', async () => {
    const model = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(model, { contextLength: 2048 });
    const engine = new LocalEngine({
      modelPath: model,
      runtime: { gpu: false, threads: 2 },
      contextSize: 2048,
      maxConversations: 2,
      idleTimeoutMs: 0,
    });
    const tools = registry();
    // Schemas as declared: the compact grammar reads them itself (no oneOf narrowing).
    const defs = tools.modelTools(['fs/read', 'fs/list']);
    const provider = withTextToolCalls(
      new LocalModelProvider(engine, { sampling: { temperature: 1 } }),
      { grammar: true, maxString: 16 },
    );
    const generations = Number(process.env.PINCER_TOOLCALL_GENERATIONS ?? 8);
    let calls = 0;
    try {
      for (let i = 0; i < generations; i++) {
        let finish: Extract<ModelEvent, { type: 'finish' }> | undefined;
        for await (const event of provider.stream('local', {
          messages: [{ role: 'user', content: [{ type: 'text', text: `list files ${i}` }] }],
          tools: defs,
          toolChoice: 'required',
          // Above the longest reply the grammar admits (4 calls of 3 keys, 16-character
          // strings of up to 6 bytes a character: under 800 bytes), so no reply is cut short.
          maxTokens: 1024,
          providerOptions: { local: { conversationId: `c${i}` } },
        }))
          if (event.type === 'finish') finish = event;
        const made = finish ? toolCallsOf(finish.message) : [];
        // Required: the grammar admits only calls; each names an allowed tool and validates.
        expect(made.length, JSON.stringify(finish?.message)).toBeGreaterThan(0);
        for (const call of made) {
          expect(['fs/read', 'fs/list']).toContain(call.name);
          // The compact grammar fixes names, keys, required keys and types; numeric ranges
          // are left to the validation guard, which answers with a structured error.
          const checked = await tools.check(call, ['fs/read', 'fs/list']);
          if ('error' in checked) {
            const { violations } = JSON.parse(checked.error.content) as {
              violations: Array<{ keyword: string }>;
            };
            expect(violations.map((v) => v.keyword)).toEqual(
              violations.map(() => expect.stringMatching(/^(minimum|maximum)$/)),
            );
          }
        }
        calls += made.length;
      }
    } finally {
      await engine.dispose();
    }
    expect(calls).toBeGreaterThanOrEqual(generations);
  }, 180_000);
});
