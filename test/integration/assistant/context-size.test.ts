/**
 * Settings → Model behaviour → Context size, through the assistant over a real agent and the
 * tiny GGUF (trained for 8192 tokens): the size is kept in the profile across a reopen, reaches
 * the local engine's context at its load, is bounded by the trained context, reloads a loaded
 * engine when nothing runs, and sets the memory context's budget.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { assistantOver } from '../../../src/main/core/assistant/index.js';
import type { BuiltContext } from '../../../src/main/core/memory/index.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { vaultSecrets } from '../../support/secrets.js';

let dataDir = '';
let modelPath = '';
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-context-size-'));
  modelPath = path.join(dataDir, 'tiny.gguf');
  await writeTinyGguf(modelPath, { contextLength: 8192 });
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function open(builds: BuiltContext[] = []) {
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'local', modelPath },
    tools: '',
    local: { threads: 1 },
    generation: { maxTokens: 4, temperature: 0 },
    onContext: (built) => builds.push(built),
    secrets: vaultSecrets(dataDir, 'test-passphrase'),
  });
  return { agent, assistant: await assistantOver(agent, { kind: 'local', modelPath }) };
}

describe('the local context size setting', () => {
  it('is kept across a reopen and is the context the engine loads with', async () => {
    const first = await open();
    try {
      expect(first.assistant.settings().contextSize).toBeNull();
      const state = await first.assistant.models();
      // The header's facts: what the size is bounded by and what memory it costs.
      expect(state.localModel).toMatchObject({ trainedContext: 8192, contextSize: null });
      // 2 layers x 2 KV heads x (16 + 16) key and value dims x 2 bytes (the fixture's shape).
      expect(state.localModel?.kvBytesPerToken).toBe(2 * 2 * (16 + 16) * 2);
      expect(state.localModel?.fileBytes).toBeGreaterThan(0);
      expect(first.assistant.updateSettings({ contextSize: 2048 }).contextSize).toBe(2048);
    } finally {
      await first.assistant.close();
    }

    const builds: BuiltContext[] = [];
    const second = await open(builds);
    try {
      expect(second.assistant.settings().contextSize).toBe(2048);
      expect((await second.assistant.models()).localModel?.contextSize).toBe(2048);
      const { runId } = second.assistant.send({ text: 'hello' });
      await second.assistant.finished(runId);
      expect(second.assistant.run(runId).run.outcome).toBe('completed');
      expect(second.agent.models.contextWindow).toBe(2048);
      expect((await second.assistant.models()).contextWindow).toBe(2048);
      // The memory context is budgeted from the same window (40% of it).
      expect(builds.at(-1)?.budget).toBe(Math.floor(2048 * 0.4));

      // Changed while loaded and idle: the engine reloads with the new size.
      second.assistant.updateSettings({ contextSize: 4096 });
      await expect.poll(() => second.agent.models.contextWindow, { timeout: 60_000 }).toBe(4096);
      expect(second.agent.models.loaded).toBe(true);

      // A size past what the model was trained for is bounded by it.
      second.assistant.updateSettings({ contextSize: 16384 });
      await expect.poll(() => second.agent.models.contextWindow, { timeout: 60_000 }).toBe(8192);

      // Automatic: the engine's default bound (8192 here, the trained context).
      second.assistant.updateSettings({ contextSize: null });
      expect(second.agent.models.localContextSize).toBeUndefined();
    } finally {
      await second.assistant.close();
    }
  }, 180_000);
});
