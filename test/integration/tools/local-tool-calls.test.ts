/**
 * Grammar-constrained tool calls from the real local engine (tiny GGUF with Qwen's tool
 * template, random weights) reach the tool registry through the agent runtime: every call names
 * an allowed tool and passes schema validation, so the registry runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { LocalModelProvider } from '../../../src/main/core/local/provider.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool } from '../../../src/main/core/tools/types.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { drain, tempStore } from '../runtime/harness.js';

let dir = '';
let engine: LocalEngine;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-local-tools-'));
  const model = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  engine = new LocalEngine({
    modelPath: model,
    runtime: { threads: 2 },
    contextSize: 2048,
    maxConversations: 4,
    idleTimeoutMs: 0,
  });
  await engine.load();
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Enum-only arguments: a random model finishes them; free strings it would not. */
const pick: Tool = {
  name: 'demo/pick',
  description: 'Pick a colour and a size',
  inputSchema: {
    type: 'object',
    properties: { colour: { enum: ['red', 'green', 'blue'] }, size: { enum: ['s', 'm', 'l'] } },
    required: ['colour', 'size'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  category: 'demo',
  tier: 'safe',
  timeoutMs: 1000,
  maxOutputBytes: 1000,
  source: 'builtin',
  run: async (input) => ({ content: `picked ${String(input.colour)} ${String(input.size)}` }),
};

it('the local model calls only allowed tools, with arguments that validate', async () => {
  const temp = await tempStore();
  try {
    const registry = new ToolRegistry();
    registry.register(pick);
    registry.register({
      ...pick,
      name: 'demo/hidden',
      run: async () => ({ content: 'must not run' }),
    });
    const runtime = new AgentRuntime({
      ...UNGOVERNED,
      store: temp.store,
      model: viaProvider(new LocalModelProvider(engine, { sampling: { temperature: 1 } }), 'tiny'),
      tools: registry.host({ allow: ['demo/pick'], workspace: dir }),
      generation: { maxTokens: 60 },
      guards: { maxTurns: 2 },
    });
    let calls = 0;
    for (let seed = 0; seed < 5; seed++) {
      const handle = runtime.start({ text: `pick one (${seed})`, requireToolFirst: true });
      const events = await drain(handle.events.all());
      await handle.done;
      const finished = events.filter((e) => e.type === 'tool.finished');
      for (const event of events) {
        if (event.type === 'tool.requested') {
          calls++;
          expect(event.call.name).toBe('demo/pick');
          expect(['red', 'green', 'blue']).toContain(event.call.input.colour);
        }
      }
      expect(finished.length).toBeGreaterThan(0);
      expect(finished.every((e) => e.type === 'tool.finished' && e.status === 'ok')).toBe(true);
    }
    expect(calls).toBeGreaterThanOrEqual(5);
  } finally {
    await temp.cleanup();
  }
}, 120_000);
