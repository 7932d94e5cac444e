/**
 * Private by default: what Pincer keeps for the user (the data dir, the profile database, the
 * vault) is readable by the user alone whatever the umask, and a copy left looser by an older
 * version (or a umask of 022) is tightened when it is opened. Synchronous: it runs once before
 * a database opens.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { profileDatabasePath } from './profile-files.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Narrows `target` to `mode` when group or others have any access; a missing one is left. */
function tighten(target: string, mode: number): void {
  let current: number;
  try {
    current = statSync(target).mode & 0o777;
  } catch {
    return;
  }
  if ((current & 0o077) === 0) return;
  try {
    chmodSync(target, current & mode);
  } catch {
    // Not ours to change (another owner): it stays as it is.
  }
}

/** Creates the folder (and missing parents) 0700, and tightens it when it exists. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE);
}

/** Tightens an existing file to 0600; a missing one is left for its writer. */
export function privateFile(file: string): void {
  tighten(file, PRIVATE_FILE_MODE);
}

/**
 * A SQLite file, created empty 0600 before the driver opens it (SQLite then gives its -wal and
 * -shm files the database's own mode), or tightened with them when they exist.
 */
export function privateDatabaseFile(file: string): void {
  privateDir(path.dirname(file));
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const suffix of ['', '-wal', '-shm', '-journal']) privateFile(`${file}${suffix}`);
}

/** The data dir and each folder down to `inner` (inside it), all 0700. */
export function privatePath(dataDir: string, inner: string): void {
  privateDir(inner);
  const relative = path.relative(dataDir, inner);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return;
  for (let dir = inner; ; dir = path.dirname(dir)) {
    tighten(dir, PRIVATE_DIR_MODE);
    if (dir === dataDir || path.dirname(dir) === dir) break;
  }
}

/** The profile database's path, with the data dir and the folders down to it made private. */
export function privateProfileDatabase(dataDir: string, profile = 'default'): string {
  const file = profileDatabasePath(dataDir, profile);
  privatePath(dataDir, path.dirname(file));
  return file;
}
