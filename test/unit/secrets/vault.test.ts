import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  passphraseVault,
  safeStorageVault,
  vaultPath,
} from '../../../src/main/core/secrets/index.js';
import { VaultError } from '../../../src/main/core/secrets/types.js';
import { VaultBackend } from '../../../src/main/core/secrets/vault.js';
import { PassphraseCodec } from '../../../src/main/core/secrets/vault-codec.js';
import { FAST_SCRYPT, testEncryptor } from '../../support/secrets.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const vault = (passphrase = 'correct horse') =>
  passphraseVault(dir, { PINCER_VAULT_PASSPHRASE: passphrase }, undefined, FAST_SCRYPT);

async function expectVaultError(promise: Promise<unknown>, code: VaultError['code']) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VaultError);
  expect((error as VaultError).code).toBe(code);
}

describe('passphrase vault (AES-256-GCM, scrypt)', () => {
  it('round-trips values through a fresh instance (a new process would do the same)', async () => {
    const writer = vault();
    await writer.set('ANTHROPIC_API_KEY', 'sk-ant-123');
    await writer.set('UNICODE', 'päss wörd ✓\n"quoted"');
    await writer.set('GONE', 'x-to-delete');
    expect(await writer.delete('GONE')).toBe(true);
    expect(await writer.delete('GONE')).toBe(false);
    const reader = vault();
    expect(await reader.list()).toEqual(['ANTHROPIC_API_KEY', 'UNICODE']);
    expect(await reader.get('ANTHROPIC_API_KEY')).toBe('sk-ant-123');
    expect(await reader.get('UNICODE')).toBe('päss wörd ✓\n"quoted"');
    expect(await reader.get('MISSING')).toBeUndefined();
  });

  it('never stores the value or the name in clear', async () => {
    await vault().set('PLAIN_NAME_CHECK', 'plaintext-value-check');
    const bytes = await readFile(vaultPath(dir));
    expect(bytes.includes('plaintext-value-check')).toBe(false);
    expect(bytes.includes('PLAIN_NAME_CHECK')).toBe(false);
    expect(bytes.subarray(0, 8).toString()).toBe('PINCERVT');
  });

  it('creates the file with mode 0600 (and its folder 0700)', async () => {
    await vault().set('A', 'value-a');
    if (process.platform === 'win32') return;
    expect((await stat(vaultPath(dir))).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(vaultPath(dir)))).mode & 0o777).toBe(0o700);
  });

  it('rejects a wrong passphrase with a typed error and does not touch the file', async () => {
    await vault().set('A', 'value-a');
    const before = await readFile(vaultPath(dir));
    await expectVaultError(vault('wrong').get('A'), 'wrong-passphrase');
    await expectVaultError(vault('wrong').set('B', 'value-b'), 'wrong-passphrase');
    expect(await readFile(vaultPath(dir))).toEqual(before);
  });

  it('reports a missing passphrase as no-passphrase', async () => {
    await vault().set('A', 'value-a');
    const codec = new PassphraseCodec(async () => undefined, FAST_SCRYPT);
    await expectVaultError(codec.open(await readFile(vaultPath(dir))), 'no-passphrase');
  });

  it('rejects tampering anywhere after the key check: nonce, length, ciphertext, tag', async () => {
    await vault().set('A', 'value-a');
    const good = await readFile(vaultPath(dir));
    // nonce (30), ciphertext (62), tag (last byte); each flipped alone.
    for (const offset of [30, 41, 62, good.length - 20, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[offset] = (bad[offset] ?? 0) ^ 0x01;
      await writeFile(vaultPath(dir), bad);
      await expectVaultError(vault().get('A'), 'tampered');
      // A write must refuse rather than replace the damaged file with a new, emptier one.
      await expectVaultError(vault().set('B', 'value-b'), 'tampered');
      expect(await readFile(vaultPath(dir))).toEqual(bad);
    }
  });

  it('rejects an altered salt or key check as a wrong key, and unknown versions', async () => {
    await vault().set('A', 'value-a');
    const good = await readFile(vaultPath(dir));
    for (const offset of [14, 42]) {
      const bad = Buffer.from(good);
      bad[offset] = (bad[offset] ?? 0) ^ 0x80;
      await writeFile(vaultPath(dir), bad);
      await expectVaultError(vault().get('A'), 'wrong-passphrase');
    }
    const future = Buffer.from(good);
    future[8] = 2;
    await writeFile(vaultPath(dir), future);
    await expectVaultError(vault().get('A'), 'unsupported-version');
    await writeFile(vaultPath(dir), 'NOTAVAULT at all, just text');
    await expectVaultError(vault().get('A'), 'not-a-vault');
  });

  it('rejects truncation at every length, and trailing garbage', async () => {
    await vault().set('A', 'value-a');
    const good = await readFile(vaultPath(dir));
    for (let length = 0; length < good.length; length += 1) {
      await writeFile(vaultPath(dir), good.subarray(0, length));
      const error = await vault()
        .get('A')
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error, `length ${length}`).toBeInstanceOf(VaultError);
      expect((error as VaultError).code, `length ${length}`).toBe('truncated');
    }
    await writeFile(vaultPath(dir), Buffer.concat([good, Buffer.from([0])]));
    await expectVaultError(vault().get('A'), 'tampered');
  });

  it('keeps the old file intact when the final rename fails', async () => {
    await vault().set('KEEP', 'old-value');
    const before = await readFile(vaultPath(dir));
    const failing = new VaultBackend({
      id: 'vault',
      label: 'test',
      file: vaultPath(dir),
      codec: new PassphraseCodec(async () => 'correct horse', FAST_SCRYPT),
      availability: async () => ({ available: true }),
      write: {
        rename: async () => {
          throw Object.assign(new Error('simulated EXDEV'), { code: 'EXDEV' });
        },
      },
    });
    await expect(failing.set('NEW', 'new-value')).rejects.toThrow('simulated EXDEV');
    expect(await readFile(vaultPath(dir))).toEqual(before);
    expect(await vault().get('KEEP')).toBe('old-value');
    expect(await vault().get('NEW')).toBeUndefined();
    // Neither the temp file nor the lock is left behind.
    expect(await readdir(path.dirname(vaultPath(dir)))).toEqual(['vault.pincer']);
  });

  it('keeps every value when many writers (separate instances) write at once', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `KEY_${i}`);
    await Promise.all(names.map((name) => vault().set(name, `value-of-${name}`)));
    const reader = vault();
    expect(await reader.list()).toEqual([...names].sort());
    for (const name of names) expect(await reader.get(name)).toBe(`value-of-${name}`);
  });

  it('refuses invalid names', async () => {
    await expect(vault().set('no spaces', 'v-1234')).rejects.toMatchObject({
      code: 'invalid-name',
    });
    await expect(vault().set('', 'v-1234')).rejects.toMatchObject({ code: 'invalid-name' });
  });
});

describe('safeStorage vault (test encryptor: Electron cannot run headless here)', () => {
  it('round-trips, and another OS key cannot read it (reported as tampered)', async () => {
    const encryptor = testEncryptor();
    const store = safeStorageVault(dir, encryptor);
    expect(await store.availability()).toMatchObject({ available: true });
    await store.set('TOKEN', 'ss-secret-value');
    expect(await safeStorageVault(dir, encryptor).get('TOKEN')).toBe('ss-secret-value');
    const raw = await readFile(path.join(dir, 'secrets', 'safe-storage.pincer'));
    expect(raw.includes('ss-secret-value')).toBe(false);
    await expectVaultError(safeStorageVault(dir, testEncryptor()).get('TOKEN'), 'tampered');
  });

  it('is unavailable when the encryptor says so', async () => {
    const state = await safeStorageVault(dir, testEncryptor(undefined, false)).availability();
    expect(state.available).toBe(false);
  });
});
