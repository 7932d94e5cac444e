/**
 * A model with a 2,048-token context answers with the default tools: the runtime fits each call
 * to the loaded context in the model's own tokens, leaving tools out (last in the list first)
 * with a notice rather than failing. Real inference on the tiny GGUF with Qwen's tool template.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM, DEFAULT_TOOLS } from '../../../src/main/core/agent/agent.js';
import { localContextWindow } from '../../../src/main/core/local/context-window.js';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { LocalModelProvider } from '../../../src/main/core/local/provider.js';
import { memoryNote } from '../../../src/main/core/memory/note-tool.js';
import { type ModelAccess, viaProvider } from '../../../src/main/core/models/access.js';
import type { RunEvent } from '../../../src/main/core/runtime/events.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { UNGOVERNED } from '../../support/runtime-hooks.js';
import { drain, tempStore } from '../runtime/harness.js';

/** Instructions that leave room for some of the tools only. */
const LONG_INSTRUCTIONS = 'Be helpful, careful and kind. '.repeat(40);

let dir = '';
let engine: LocalEngine;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-small-context-'));
  const model = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(model, {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 2048,
  });
  engine = new LocalEngine({
    modelPath: model,
    runtime: { threads: 2 },
    contextSize: 2048,
    idleTimeoutMs: 0,
  });
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const defaultTools = () => {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  registry.register(memoryNote);
  const allow = DEFAULT_TOOLS.split(',');
  return { registry, allow, names: registry.visible(allow).map((tool) => tool.name) };
};

async function hello(system: string): Promise<RunEvent[]> {
  const temp = await tempStore();
  try {
    const { registry, allow } = defaultTools();
    const model: ModelAccess = {
      ...viaProvider(
        new LocalModelProvider(engine, { sampling: { temperature: 0 }, grammar: {} }),
        'tiny',
      ),
      window: async () => localContextWindow(await engine.measure()),
    };
    const runtime = new AgentRuntime({
      ...UNGOVERNED,
      store: temp.store,
      model,
      system: () => system,
      tools: registry.host({ allow, workspace: dir }),
      generation: { maxTokens: 8 },
      guards: { maxTurns: 1 },
    });
    const handle = runtime.start({ text: 'hello' });
    const events = await drain(handle.events.all());
    await handle.done;
    return events;
  } finally {
    await temp.cleanup();
  }
}

describe('a 2,048-token local model with the default tools', () => {
  it('answers "hello" with every default tool offered', async () => {
    const events = await hello(DEFAULT_SYSTEM);
    const finished = events.find((e) => e.type === 'model.finished');
    expect(finished?.type === 'model.finished' && finished.usage.output_tokens).toBeGreaterThan(0);
    // The compact definitions fit: nothing was left out.
    expect(events.some((e) => e.type === 'context.fitted')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished' });
    expect(events.at(-1)).not.toMatchObject({ outcome: 'failed' });
  }, 300_000);

  it('with long instructions, leaves tools out from the end of the list and says so', async () => {
    const events = await hello(`${DEFAULT_SYSTEM} ${LONG_INSTRUCTIONS}`);
    const notice = events.find((e) => e.type === 'context.fitted');
    expect(notice?.type).toBe('context.fitted');
    if (notice?.type !== 'context.fitted') return;
    const { names } = defaultTools();
    expect(notice.tools_left_out.length).toBeGreaterThan(0);
    // Lowest priority first: the left-out tools are the end of the manifest's order.
    expect(notice.tools_left_out).toEqual(names.slice(names.length - notice.tools_left_out.length));
    expect(notice.note).toMatch(
      new RegExp(`^${notice.tools_left_out.length} tools? left out .*context \\(2048 tokens\\)`),
    );
    // ...and the chat still answers.
    expect(events.some((e) => e.type === 'model.finished')).toBe(true);
    expect(events.at(-1)).not.toMatchObject({ outcome: 'failed' });
  }, 300_000);
});
