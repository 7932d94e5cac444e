/**
 * The safeStorage adapter (src/main/app/safe-storage.ts) against a stand-in electron module,
 * plugged into the real secrets chain: with the keychain absent, secrets go to the vault that
 * safeStorage encrypts; Linux's fixed-key "basic_text" backend is refused unless allowed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSecretStore, safeStorageVaultPath } from '../../../src/main/core/secrets/index.js';
import { safeStorageState } from './fake-electron-module.js';

vi.mock('electron', () => import('./fake-electron-module.js'));
const { safeStorageEncryptor } = await import('../../../src/main/app/safe-storage.js');

let dataDir = '';
afterEach(async () => {
  safeStorageState.available = true;
  safeStorageState.backend = 'gnome_libsecret';
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = '';
});

const noKeychain = { PINCER_KEYCHAIN: 'off' };

const linux = process.platform === 'linux';
if (!linux)
  console.warn('[desktop] basic_text is a Linux safeStorage backend: its test runs on Linux only');

describe('safeStorage vault (keychain absent)', () => {
  it('stores and reads secrets through the OS-encrypted vault; the file holds no plaintext', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-safe-'));
    const store = createSecretStore({
      dataDir,
      env: noKeychain,
      encryptor: safeStorageEncryptor(),
    });
    expect(await store.set('OPENAI_API_KEY', 'sk-test-123456')).toBe('safe-storage');
    expect(await store.resolve('OPENAI_API_KEY')).toBe('sk-test-123456');
    const onDisk = await readFile(safeStorageVaultPath(dataDir));
    // The stand-in OS key is real AES-GCM, so this holds because the file is encrypted.
    for (const encoding of ['utf8', 'base64', 'hex'] as const)
      expect(onDisk.includes(Buffer.from('sk-test-123456').toString(encoding))).toBe(false);
    const status = await store.status();
    expect(status.find((s) => s.id === 'safe-storage')?.availability).toMatchObject({
      available: true,
      detail: expect.stringContaining(linux ? 'gnome_libsecret' : 'safeStorage'),
    });
    store.close();
  });

  it.runIf(linux)(
    'refuses the basic_text backend (a fixed key) unless allowed, and says why',
    async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-safe-'));
      safeStorageState.backend = 'basic_text';
      const refused = safeStorageEncryptor({ allowBasicText: false });
      expect(refused.isEncryptionAvailable()).toBe(false);
      const store = createSecretStore({ dataDir, env: noKeychain, encryptor: refused });
      const status = await store.status();
      expect(status.find((s) => s.id === 'safe-storage')?.availability).toMatchObject({
        available: false,
        reason: expect.stringContaining('basic_text'),
      });
      store.close();
      expect(safeStorageEncryptor({ allowBasicText: true }).isEncryptionAvailable()).toBe(true);
    },
  );

  it('unavailable safeStorage (no keyring at all) is reported, not used', () => {
    safeStorageState.available = false;
    expect(safeStorageEncryptor().isEncryptionAvailable()).toBe(false);
  });
});
