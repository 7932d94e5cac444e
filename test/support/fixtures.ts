/**
 * Vitest fixtures for what most tests start from: a fresh data directory (removed after the
 * test), a secret store over it (a passphrase vault, the keychain off) and a real assistant with
 * the scripted model in it. A test names the ones it uses and gets a new set each time:
 *
 *   import { test } from '../../support/fixtures.js';
 *   test('...', async ({ assistant }) => { ... });
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base } from 'vitest';
import type { SecretStore } from '../../src/main/core/secrets/index.js';
import { type AssistantFixture, scriptedAssistant } from './assistant-harness.js';
import { vaultSecrets } from './secrets.js';

export interface Fixtures {
  /** An empty temp directory for the test's data (the profile, the vault, the manifest). */
  dataDir: string;
  /** The secret store a headless run builds over `dataDir` (passphrase "test"). */
  secrets: SecretStore;
  /** A real assistant with the scripted model (the conversation script, 1 ms between deltas). */
  assistant: AssistantFixture;
}

export const test = base.extend<Fixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  dataDir: async ({}, use) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-test-'));
    try {
      await use(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  secrets: async ({ dataDir }, use) => {
    await use(vaultSecrets(dataDir));
  },
  assistant: async ({ dataDir, secrets }, use) => {
    const fixture = await scriptedAssistant({ delayMs: 1, dataDir, secrets });
    try {
      await use(fixture);
    } finally {
      await fixture.close();
    }
  },
});

export const it = test;
export { describe, expect } from 'vitest';
