/**
 * Against a REAL Secret Service (no keytar mocks). Run with `npm run test:keychain` inside
 * `scripts/with-keyring.sh` (a fresh D-Bus session with an unlocked gnome-keyring), as .ci/run
 * does. In a plain `vitest run` without a reachable keyring these tests skip and print why;
 * with PINCER_REQUIRE_KEYCHAIN=1 (set by with-keyring.sh) an unreachable keyring fails them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/main/core/redaction/index.js';
import {
  createSecretStore,
  loadKnownSecrets,
  SecretStore,
} from '../../../src/main/core/secrets/index.js';
import { KeychainBackend, loadKeytar } from '../../../src/main/core/secrets/keychain.js';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';
import { FAST_SCRYPT } from '../../support/secrets.js';

// A throwaway service name: a developer's real "Pincer" entries are never touched.
const SERVICE = `Pincer-test-${process.pid}-${randomBytes(3).toString('hex')}`;
const required = process.env.PINCER_REQUIRE_KEYCHAIN === '1';
const probe = await new KeychainBackend({ service: SERVICE }).availability();
const reason = probe.available ? '' : probe.reason;
if (!probe.available && !required) {
  console.warn(
    `[keychain tests SKIPPED] no Secret Service reachable: ${reason}. Run: bash scripts/with-keyring.sh npm run test:keychain`,
  );
}

describe.skipIf(!probe.available && !required)('OS keychain backend (real Secret Service)', () => {
  let home = '';
  const backend = new KeychainBackend({ service: SERVICE });

  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'pincer-keychain-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    const loaded = await loadKeytar();
    if ('keytar' in loaded) {
      for (const { account } of await loaded.keytar.findCredentials(SERVICE).catch(() => [])) {
        await loaded.keytar.deletePassword(SERVICE, account);
      }
    }
  });

  it('reaches the Secret Service', () => {
    // Under PINCER_REQUIRE_KEYCHAIN=1 this is where a missing keyring fails, loudly.
    expect(probe, `keychain unavailable: ${reason}`).toMatchObject({ available: true });
  });

  it('sets, gets, lists (via findCredentials) and deletes', async () => {
    await backend.set('KC_ONE', 'keychain-value-1');
    await backend.set('KC_TWO', 'keychain-value-2');
    expect(await backend.get('KC_ONE')).toBe('keychain-value-1');
    expect(await backend.list()).toEqual(['KC_ONE', 'KC_TWO']);
    // A second instance (as another process would) sees the same entries.
    expect(await new KeychainBackend({ service: SERVICE }).get('KC_TWO')).toBe('keychain-value-2');
    expect(await backend.delete('KC_ONE')).toBe(true);
    expect(await backend.delete('KC_ONE')).toBe(false);
    expect(await backend.get('KC_ONE')).toBeUndefined();
    expect(await backend.list()).toEqual(['KC_TWO']);
  });

  it('is the first backend of the chain and resolves secret_refs', async () => {
    const store = createSecretStore({
      dataDir: home,
      env: {
        PINCER_KEYCHAIN_SERVICE: SERVICE,
        PINCER_VAULT_PASSPHRASE: 'pw',
        FROM_ENV: 'env-value-9',
      },
      scrypt: FAST_SCRYPT,
    });
    expect((await store.primary())?.id).toBe('keychain');
    expect(await store.set('CHAIN_KEY', 'chain-value-3')).toBe('keychain');
    expect(await store.resolve('CHAIN_KEY')).toBe('chain-value-3');
    expect(await store.resolve('FROM_ENV')).toBe('env-value-9');
    expect(await store.delete('CHAIN_KEY')).toEqual(['keychain']);
    store.close();
  });

  it('its values are known to the redactor at start-up, before anything reads them', async () => {
    await backend.set('KC_UNREAD', 'keychain-unread-value-7');
    // A fresh store, as at start-up: this process has not read the value through it.
    const redactor = new Redactor();
    const store = new SecretStore([new KeychainBackend({ service: SERVICE })], redactor);
    expect(redactor.redact('x keychain-unread-value-7 y').text).toBe('x keychain-unread-value-7 y');
    const report = await loadKnownSecrets(store, redactor);
    expect(report.unavailable).toEqual([]);
    expect(redactor.redact('x keychain-unread-value-7 y').text).toBe('x [REDACTED:KC_UNREAD] y');
    expect(await backend.delete('KC_UNREAD')).toBe(true);
  });

  it('migrates the vault file into the keychain without losing a value', async () => {
    const env = { PINCER_KEYCHAIN_SERVICE: SERVICE, PINCER_VAULT_PASSPHRASE: 'pw' };
    // Written while the keychain was "absent" ...
    const before = createSecretStore({
      dataDir: home,
      env: { ...env, PINCER_KEYCHAIN: 'off' },
      scrypt: FAST_SCRYPT,
    });
    await before.set('MIGRATE_A', 'migrate-value-a');
    await before.set('MIGRATE_B', 'migrate-value-b');
    // ... then it appears.
    const after = createSecretStore({ dataDir: home, env, scrypt: FAST_SCRYPT });
    const report = await after.migrate('keychain');
    expect(report.moved.map((m) => m.name).sort()).toEqual(['MIGRATE_A', 'MIGRATE_B']);
    expect(await backend.get('MIGRATE_A')).toBe('migrate-value-a');
    expect(await backend.get('MIGRATE_B')).toBe('migrate-value-b');
    expect(await before.list()).toEqual([]);
    expect(await after.get('MIGRATE_A')).toEqual({ value: 'migrate-value-a', backend: 'keychain' });
  });

  it('works through the built CLI: set from stdin, list, get, rm', async () => {
    if (!existsSync(builtCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
    const secret = `kc-cli-${randomBytes(8).toString('hex')}`;
    const env = {
      ...process.env,
      PINCER_HOME: home,
      PINCER_KEYCHAIN_SERVICE: SERVICE,
      PINCER_VAULT_PASSPHRASE: '',
    };
    const set = await runBuiltCli(['secrets', 'set', 'CLI_KC'], { env, input: secret });
    expect(set, set.stderr).toMatchObject({ code: 0 });
    expect(set.stdout).toContain('OS keychain');
    const list = await runBuiltCli(['secrets', 'list'], { env });
    expect(list.stdout).toMatch(/^CLI_KC\s+keychain$/m);
    const get = await runBuiltCli(['secrets', 'get', 'CLI_KC'], { env });
    expect(get.stdout).toContain('in OS keychain');
    for (const r of [set, list, get]) expect(r.stdout + r.stderr).not.toContain(secret);
    expect((await runBuiltCli(['secrets', 'get', 'CLI_KC', '--reveal'], { env })).stdout).toBe(
      `${secret}\n`,
    );
    expect(await backend.get('CLI_KC')).toBe(secret);
    expect((await runBuiltCli(['secrets', 'rm', 'CLI_KC'], { env })).code).toBe(0);
    expect(await backend.get('CLI_KC')).toBeUndefined();
  });
});
