/**
 * A context size chosen while the local engine is loaded: the model switch keeps it waiting
 * while something uses the engine, then reloads with it (real engine, the tiny GGUF).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { createSecretStore } from '../../../src/main/core/secrets/index.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { FAST_SCRYPT } from '../../support/secrets.js';

let dataDir = '';
let agent: Agent | undefined;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-context-resize-'));
  const modelPath = path.join(dataDir, 'tiny.gguf');
  await writeTinyGguf(modelPath, { contextLength: 8192 });
  agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'local', modelPath },
    tools: '',
    local: { threads: 1, contextSize: 1024 },
    secrets: createSecretStore({
      dataDir,
      env: { PINCER_KEYCHAIN: 'off', PINCER_VAULT_PASSPHRASE: 'test-passphrase' },
      scrypt: FAST_SCRYPT,
    }),
  });
});
afterAll(async () => {
  await agent?.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('waits while the engine is busy, then reloads it with the new size', async () => {
  const models = (agent as Agent).models;
  await models.load();
  expect(models.contextWindow).toBe(1024);

  let changes = 0;
  models.resize(2048);
  expect(models.resizePending).toBe(true);
  await models.reloadWhenFree(
    () => true,
    () => changes++,
  );
  // Still the old engine: nothing was unloaded under whoever uses it.
  expect(models.resizePending).toBe(true);
  expect(models.contextWindow).toBe(1024);
  expect(changes).toBe(0);

  await models.reloadWhenFree(
    () => false,
    () => changes++,
  );
  expect(models.resizePending).toBe(false);
  expect(models.loaded).toBe(true);
  expect(models.contextWindow).toBe(2048);
  // Told after the unload and after the load.
  expect(changes).toBe(2);
}, 120_000);

it('asks for no reload while the engine is not loaded: the size applies at the next load', async () => {
  const models = (agent as Agent).models;
  await models.unload();
  models.resize(4096);
  expect(models.resizePending).toBe(false);
  await models.load();
  expect(models.contextWindow).toBe(4096);
}, 120_000);
