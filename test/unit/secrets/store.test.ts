import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveApiKey } from '../../../src/main/core/models/credentials.js';
import { Redactor } from '../../../src/main/core/redaction/index.js';
import { EnvBackend } from '../../../src/main/core/secrets/env.js';
import {
  createSecretStore,
  passphraseVault,
  SecretStore,
  safeStorageVault,
} from '../../../src/main/core/secrets/index.js';
import type { SecretBackend } from '../../../src/main/core/secrets/types.js';
import { FAST_SCRYPT, testEncryptor } from '../../support/secrets.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PASS = { PINCER_VAULT_PASSPHRASE: 'pw-for-tests' };

function chain(env: Record<string, string> = {}, redactor = new Redactor()) {
  const ss = safeStorageVault(dir, testEncryptor(Buffer.alloc(32, 7)));
  const vault = passphraseVault(dir, PASS, undefined, FAST_SCRYPT);
  const envBackend = new EnvBackend(env, ['ANTHROPIC_API_KEY']);
  return {
    store: new SecretStore([ss, vault, envBackend], redactor),
    ss,
    vault,
    envBackend,
    redactor,
  };
}

describe('SecretStore chain', () => {
  it('writes to the first available writable backend and reads first-wins', async () => {
    const { store, vault } = chain({ SHARED: 'from-env' });
    expect(await store.set('SHARED', 'from-safe-storage')).toBe('safe-storage');
    await vault.set('SHARED', 'from-vault');
    await vault.set('ONLY_VAULT', 'vault-only-value');
    expect(await store.get('SHARED')).toEqual({
      value: 'from-safe-storage',
      backend: 'safe-storage',
    });
    expect(await store.get('ONLY_VAULT')).toEqual({ value: 'vault-only-value', backend: 'vault' });
    expect(await store.list()).toEqual([
      { name: 'SHARED', backend: 'safe-storage', shadowed: false },
      { name: 'ONLY_VAULT', backend: 'vault', shadowed: false },
      { name: 'SHARED', backend: 'vault', shadowed: true },
    ]);
  });

  it('falls through unavailable backends (safeStorage off, no passphrase) to the environment', async () => {
    const store = new SecretStore([
      safeStorageVault(dir, testEncryptor(undefined, false)),
      passphraseVault(dir, {}, undefined, FAST_SCRYPT),
      new EnvBackend({ ANTHROPIC_API_KEY: 'env-key-1234' }, ['ANTHROPIC_API_KEY']),
    ]);
    expect(await store.primary()).toBeUndefined();
    expect(await store.resolve('ANTHROPIC_API_KEY')).toBe('env-key-1234');
    await expect(store.set('X', 'value-x')).rejects.toMatchObject({ code: 'unavailable' });
    const reasons = (await store.status()).map((s) => s.availability);
    expect(reasons[1]).toMatchObject({
      available: false,
      reason: expect.stringContaining('PINCER_VAULT_PASSPHRASE'),
    });
  });

  it('serves the model layer as its SecretLookup (secret_ref first, then the conventional name)', async () => {
    const { store } = chain({ ANTHROPIC_API_KEY: 'env-anthropic' });
    await store.set('MY_REF', 'stored-ref-value');
    expect(await resolveApiKey({ secretRef: 'MY_REF', protocol: 'anthropic', lookup: store })).toBe(
      'stored-ref-value',
    );
    expect(await resolveApiKey({ secretRef: 'NOPE', protocol: 'anthropic', lookup: store })).toBe(
      'env-anthropic',
    );
  });

  it('registers every value it reads or writes for redaction', async () => {
    const { store, vault, redactor } = chain();
    await vault.set('READ_ME', 'read-secret-999');
    await store.set('WRITE_ME', 'written-secret-888');
    expect(redactor.redact('read-secret-999').text).toBe('read-secret-999'); // not read yet
    await store.get('READ_ME');
    expect(redactor.redact('x read-secret-999 written-secret-888').text).toBe(
      'x [REDACTED:READ_ME] [REDACTED:WRITE_ME]',
    );
  });

  it('deletes from every writable backend and never from the environment', async () => {
    const { store, vault } = chain({ ANTHROPIC_API_KEY: 'env-value-1' });
    await store.set('DUP', 'dup-value-1');
    await vault.set('DUP', 'dup-value-2');
    expect(await store.delete('DUP')).toEqual(['safe-storage', 'vault']);
    expect(await store.get('DUP')).toBeUndefined();
    expect(await store.delete('ANTHROPIC_API_KEY')).toEqual([]);
    expect(await store.resolve('ANTHROPIC_API_KEY')).toBe('env-value-1');
  });
});

describe('migration', () => {
  it('moves vault -> safe-storage: copies, verifies, then deletes from the source', async () => {
    const { store, vault, ss } = chain();
    await vault.set('A', 'value-a-1');
    await vault.set('B', 'value-b-2');
    await ss.set('B', 'value-b-2'); // already there with the same value: just drop the source copy
    const report = await store.migrate('safe-storage');
    expect(report.moved.map((m) => m.name).sort()).toEqual(['A', 'B']);
    expect(report.skipped).toEqual([]);
    expect(await vault.list()).toEqual([]);
    expect(await ss.get('A')).toBe('value-a-1');
    expect(await ss.get('B')).toBe('value-b-2');
  });

  it('keeps both copies when the target holds a different value', async () => {
    const { store, vault, ss } = chain();
    await vault.set('C', 'vault-c-value');
    await ss.set('C', 'other-c-value');
    const report = await store.migrate('safe-storage');
    expect(report.skipped).toHaveLength(1);
    expect(await vault.get('C')).toBe('vault-c-value');
    expect(await ss.get('C')).toBe('other-c-value');
  });

  it('leaves the source intact when the target does not read the value back', async () => {
    const { vault } = chain();
    await vault.set('D', 'value-d-4');
    // A backend that accepts writes but loses them: the copy cannot be verified.
    const lossy: SecretBackend = {
      id: 'keychain',
      label: 'lossy',
      writable: true,
      availability: async () => ({ available: true }),
      get: async () => undefined,
      set: async () => undefined,
      delete: async () => false,
      list: async () => [],
    };
    await expect(new SecretStore([lossy, vault]).migrate('keychain')).rejects.toMatchObject({
      code: 'migration-failed',
    });
    expect(await vault.get('D')).toBe('value-d-4');
  });

  it('createSecretStore honours PINCER_KEYCHAIN=off and orders the chain', () => {
    const ids = (env: Record<string, string>, withEncryptor: boolean) =>
      createSecretStore({
        dataDir: dir,
        env,
        encryptor: withEncryptor ? testEncryptor() : undefined,
      }).backends.map((b) => b.id);
    expect(ids({}, true)).toEqual(['keychain', 'safe-storage', 'vault', 'env']);
    expect(ids({ PINCER_KEYCHAIN: 'off' }, false)).toEqual(['vault', 'env']);
  });
});
