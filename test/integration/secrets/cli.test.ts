import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';
import { seedFastVault } from '../../support/secrets.js';

// Needs `npm run build` (dist/cli.js), as the other CLI integration tests do.
const SECRET = 'sk-test-Zq81-very-secret-value';
let home = '';
const env = () => ({
  ...process.env,
  PINCER_HOME: home,
  PINCER_VAULT_PASSPHRASE: 'cli test passphrase',
  // The vault is under test here: keep a developer's real keychain out of it.
  PINCER_KEYCHAIN: 'off',
});
const pincer = (args: string[], input?: string) => runBuiltCli(args, { env: env(), input });

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-secrets-cli-'));
  await seedFastVault(home, 'cli test passphrase');
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('pincer secrets (built CLI, encrypted vault)', () => {
  it('set reads the value from stdin and never echoes it', async () => {
    const result = await pincer(['secrets', 'set', 'MY_API_KEY'], `${SECRET}\n`);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('stored MY_API_KEY in encrypted vault file');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const file = await readFile(path.join(home, 'secrets', 'vault.pincer'));
    expect(file.includes(SECRET)).toBe(false);
  });

  it('list shows names and backend only', async () => {
    const result = await pincer(['secrets', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^MY_API_KEY\s+vault$/m);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const json = await pincer(['secrets', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'MY_API_KEY', backend: 'vault', shadowed: false },
    ]);
  });

  it('get without --reveal says where it is; with --reveal prints exactly the value', async () => {
    const hidden = await pincer(['secrets', 'get', 'MY_API_KEY']);
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toContain('MY_API_KEY is set (in encrypted vault file');
    expect(hidden.stdout + hidden.stderr).not.toContain(SECRET);
    const shown = await pincer(['secrets', 'get', 'MY_API_KEY', '--reveal']);
    expect(shown).toMatchObject({ code: 0, stdout: `${SECRET}\n` });
  });

  it('refuses an empty value and an invalid name', async () => {
    expect((await pincer(['secrets', 'set', 'EMPTY'], '')).code).toBe(2);
    expect((await pincer(['secrets', 'set', 'bad name'], 'value-1234')).code).toBe(2);
  });

  it('fails clearly with a wrong passphrase, without printing the value', async () => {
    const result = await runBuiltCli(['secrets', 'get', 'MY_API_KEY', '--reveal'], {
      env: { ...env(), PINCER_VAULT_PASSPHRASE: 'not the passphrase' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('wrong vault passphrase');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('without a passphrase, says how to provide one', async () => {
    const result = await runBuiltCli(['secrets', 'set', 'OTHER'], {
      env: { ...env(), PINCER_VAULT_PASSPHRASE: '' },
      input: 'other-value-1234',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PINCER_VAULT_PASSPHRASE');
  });

  it('rm deletes it; a second rm and a get then fail', async () => {
    expect(await pincer(['secrets', 'rm', 'MY_API_KEY'])).toMatchObject({ code: 0 });
    expect((await pincer(['secrets', 'rm', 'MY_API_KEY'])).code).toBe(1);
    expect((await pincer(['secrets', 'get', 'MY_API_KEY'])).code).toBe(1);
    expect((await pincer(['secrets', 'list'])).stdout).toContain('no secrets stored');
  });

  it('keeps every value when several CLI processes write at once', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `PARALLEL_${i}`);
    const results = await Promise.all(
      names.map((n) => pincer(['secrets', 'set', n], `value-of-${n}`)),
    );
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    const listed = (await pincer(['secrets', 'list'])).stdout;
    for (const n of names) {
      expect(listed).toContain(n);
      expect((await pincer(['secrets', 'get', n, '--reveal'])).stdout).toBe(`value-of-${n}\n`);
    }
    // Twelve CLI processes: the timeout catches a hang (a lock never released), not slowness.
  }, 180_000);

  it('doctor reports the vault as the active backend', async () => {
    const result = await pincer(['doctor', '--json']);
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ id: string; details?: { active?: string } }>;
    };
    expect(report.checks.find((c) => c.id === 'secrets')?.details?.active).toBe('vault');
  });
});
