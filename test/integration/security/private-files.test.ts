/**
 * Private by default: whatever the umask, the data dir is 0700, the profile database (and its
 * WAL and shared-memory files) and the vault 0600; a data dir left looser by an older version
 * is tightened when it is opened. The built CLI, started under umask 022.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/core/storage/index.js';
import { builtCli } from '../../support/cli-run.js';
import { seedFastVault } from '../../support/secrets.js';

const PASSPHRASE = 'private-by-default';
let root = '';
let dataDir = '';

beforeAll(async () => {
  // The built CLI is the product: fail loudly when it was not built.
  await stat(builtCli).catch(() => {
    throw new Error(`${builtCli} is missing: run npm run build first`);
  });
});

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'pincer-private-'));
  dataDir = path.join(root, 'data');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

/** `pincer ARGS` under `umask 022`, the usual default that made the database world-readable. */
function cliUnderUmask022(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/bin/sh',
      ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, builtCli, ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: root,
          PINCER_HOME: dataDir,
          PINCER_VAULT_PASSPHRASE: PASSPHRASE,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
    child.stdin.end('secret-value\n');
  });
}

const database = () => path.join(dataDir, 'profiles', 'default', 'pincer.db');

describe('the profile and the vault are private whatever the umask', () => {
  it('a new data dir: folders 0700, pincer.db and the vault 0600', async () => {
    await seedFastVault(dataDir, PASSPHRASE);
    const secret = await cliUnderUmask022(['secrets', 'set', 'PRIVATE_TEST', '--to', 'vault']);
    expect(secret.code, secret.output).toBe(0);
    const audit = await cliUnderUmask022(['audit']);
    expect(audit.code, audit.output).toBe(0);
    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'profiles'))).toBe(0o700);
    expect(await modeOf(path.dirname(database()))).toBe(0o700);
    expect(await modeOf(database())).toBe(0o600);
    expect(await modeOf(path.join(dataDir, 'secrets'))).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'secrets', 'vault.pincer'))).toBe(0o600);
  });

  it('an existing data dir left world-readable is tightened when it is opened', async () => {
    await seedFastVault(dataDir, PASSPHRASE);
    await mkdir(path.dirname(database()), { recursive: true });
    const first = await cliUnderUmask022(['audit']);
    expect(first.code, first.output).toBe(0);
    const loose = [
      dataDir,
      path.join(dataDir, 'profiles'),
      path.dirname(database()),
      path.join(dataDir, 'secrets'),
    ];
    for (const dir of loose) await chmod(dir, 0o755);
    const files = [database(), path.join(dataDir, 'secrets', 'vault.pincer')];
    for (const file of files) await chmod(file, 0o644);
    const again = await cliUnderUmask022(['audit']);
    expect(again.code, again.output).toBe(0);
    const listed = await cliUnderUmask022(['secrets', 'list']);
    expect(listed.code, listed.output).toBe(0);
    for (const dir of loose) expect(await modeOf(dir), dir).toBe(0o700);
    for (const file of files) expect(await modeOf(file), file).toBe(0o600);
  });

  it('any database Pincer opens (a telemetry file too) is 0600 with its WAL, in a 0700 folder', () => {
    const previous = process.umask(0o022);
    const file = path.join(root, 'elsewhere', 'spans.db');
    try {
      const db = openDatabase(file, { vectors: false });
      try {
        db.exec('create table t (x); insert into t values (1)');
        // Read while open: the last connection's close removes the WAL and shared-memory files.
        const modes = [path.dirname(file), file, `${file}-wal`, `${file}-shm`].map(
          (p) => statSync(p).mode & 0o777,
        );
        expect(modes).toEqual([0o700, 0o600, 0o600, 0o600]);
      } finally {
        db.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('loose -wal and -shm files left beside a database are tightened before it opens', async () => {
    const file = path.join(root, 'old', 'pincer.db');
    openDatabase(file, { vectors: false }).close();
    for (const suffix of ['', '-wal', '-shm']) {
      await writeFile(`${file}${suffix}`, '', { flag: 'a' });
      await chmod(`${file}${suffix}`, 0o644);
    }
    await chmod(path.dirname(file), 0o755);
    const db = openDatabase(file, { vectors: false });
    try {
      const modes = [path.dirname(file), file, `${file}-wal`, `${file}-shm`].map(
        (p) => statSync(p).mode & 0o777,
      );
      expect(modes).toEqual([0o700, 0o600, 0o600, 0o600]);
    } finally {
      db.close();
    }
  });
});
