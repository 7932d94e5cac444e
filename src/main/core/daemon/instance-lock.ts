/**
 * One agent per data dir: the daemon holds `<data dir>/daemon/daemon.pid`, created exclusively.
 * A file left by a process that no longer exists (killed with -9, a crash) is taken over; one
 * whose process lives means another daemon (or the desktop app's agent) already serves this
 * data dir.
 */

import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { PincerError } from '../errors.js';

export class InstanceLockedError extends PincerError {
  readonly code = 'already_running';
  constructor(readonly pid: number) {
    super('conflict', `another Pincer agent (pid ${pid}) already serves this data dir`);
    this.name = 'InstanceLockedError';
  }
}

export function lockFileOf(dataDir: string): string {
  return path.join(dataDir, 'daemon', 'daemon.pid');
}

/** The pid holding the lock, if that process is alive. */
export function lockHolder(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(lockFileOf(dataDir), 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

/** Takes the lock or throws InstanceLockedError; returns the release function. */
export function acquireInstanceLock(dataDir: string): () => void {
  const file = lockFileOf(dataDir);
  mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (lockHolder(dataDir) === process.pid) unlinkSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(dataDir);
      if (holder !== undefined) throw new InstanceLockedError(holder);
      // Stale: its process is gone. Remove it and try once more (another starter may win).
      try {
        unlinkSync(file);
      } catch {
        // Someone else removed it first.
      }
    }
  }
  throw new InstanceLockedError(lockHolder(dataDir) ?? 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
