import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../../src/main/core/secrets/lock.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withFileLock', () => {
  it('serialises critical sections', async () => {
    const lock = path.join(dir, 'x.lock');
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(lock, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 5));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks a lock left by a dead process', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const lock = path.join(dir, 'x.lock');
    await writeFile(lock, JSON.stringify({ pid: dead, host: os.hostname(), at: Date.now() }));
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 2000 })).toBe('got it');
  });

  it('breaks an old lock, but times out on a fresh live one', async () => {
    const lock = path.join(dir, 'x.lock');
    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now() }),
    );
    await expect(withFileLock(lock, async () => 1, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'lock-timeout',
    });
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => 2, { timeoutMs: 2000, staleMs: 60_000 })).toBe(2);
  });
});
