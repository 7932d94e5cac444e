import fs from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { SecretsError } from './types.js';

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this is considered abandoned even if its owner looks alive. */
  staleMs?: number;
}

interface LockInfo {
  pid: number;
  host: string;
  at: number;
}

/**
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL, so only one process can
 * hold it). A lock whose owner process is gone (same host) or that is older than `staleMs` is
 * broken. Breaking renames the stale file away first, so two waiters cannot both delete it.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  await fs.mkdir(path.dirname(lockPath), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      const handle = await fs.open(lockPath, 'wx', 0o600);
      try {
        const info: LockInfo = { pid: process.pid, host: hostname(), at: Date.now() };
        await handle.writeFile(JSON.stringify(info));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() > deadline) {
      throw new SecretsError('lock-timeout', `timed out waiting for the lock ${lockPath}`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockPath, { force: true });
  }
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  let text: string;
  let mtime: number;
  try {
    [text, mtime] = await Promise.all([
      fs.readFile(lockPath, 'utf8'),
      fs.stat(lockPath).then((s) => s.mtimeMs),
    ]);
  } catch {
    return true; // Vanished between open and read: just retry.
  }
  const info = parseInfo(text);
  const old = Date.now() - mtime > staleMs;
  // An empty/unparsable lock younger than staleMs may be mid-write by its owner: wait.
  const dead = info !== null && info.host === hostname() && !isAlive(info.pid);
  if (!old && !dead) return false;
  const aside = `${lockPath}.stale.${process.pid}.${Date.now()}`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return true; // Someone else broke (or released) it first.
  }
  // Between our read and our rename another waiter may have broken the lock and taken a fresh
  // one: if what we moved is not what we judged stale, put it back (link fails if taken again).
  const moved = await fs.readFile(aside, 'utf8').catch(() => '');
  if (moved !== text) await fs.link(aside, lockPath).catch(() => undefined);
  await fs.rm(aside, { force: true });
  return true;
}

function parseInfo(text: string): LockInfo | null {
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    return typeof value.pid === 'number' && typeof value.host === 'string'
      ? { pid: value.pid, host: value.host, at: Number(value.at) }
      : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
