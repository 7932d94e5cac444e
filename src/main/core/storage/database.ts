/**
 * The profile database: one SQLite file per profile (runs, audit, memory, skills live in it),
 * opened the same way everywhere so every module gets WAL, foreign keys and a busy timeout.
 */

import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type * as SqliteVec from 'sqlite-vec';
import { PincerError } from '../errors.js';
import { privateDatabaseFile } from './private-files.js';

export type Db = Database.Database;

// The native driver loads with the first database a command opens: `pincer --version` and
// `--help` open none, and loading it costs ~12 ms of their start.
const requireNative = createRequire(import.meta.url);
let driver: { Database: typeof Database; vec: typeof SqliteVec } | undefined;
const native = () =>
  (driver ??= { Database: requireNative('better-sqlite3'), vec: requireNative('sqlite-vec') });

export interface OpenOptions {
  /** Load the sqlite-vec extension (vector search). Default true. */
  vectors?: boolean;
  readonly?: boolean;
}

export class StorageError extends PincerError {
  constructor(
    readonly code: 'open_failed' | 'migration_failed' | 'newer_schema' | 'bad_migration',
    message: string,
    options?: { cause?: unknown },
  ) {
    // A newer schema is a newer Pincer's database: not ours to read, and nothing is broken.
    super(code === 'newer_schema' ? 'unsupported' : 'internal', message, options);
    this.name = 'StorageError';
  }
}

/**
 * Opens (creating if needed) a database file, or `:memory:`. A file is the user's alone: 0600
 * with its -wal and -shm, in a 0700 folder, whatever the umask.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:' && !options.readonly) privateDatabaseFile(file);
  let db: Db;
  try {
    db = new (native().Database)(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    });
  } catch (error) {
    throw new StorageError(
      'open_failed',
      `cannot open database ${file}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  try {
    // WAL lets the UI read while a run writes; NORMAL sync is durable across app crashes in WAL.
    if (file !== ':memory:' && !options.readonly) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (options.vectors ?? true) native().vec.load(db);
    // Fails fast on a file that is not a database, instead of at the first query.
    db.prepare('select count(*) from sqlite_schema').get();
  } catch (error) {
    db.close();
    throw new StorageError(
      'open_failed',
      `cannot open database ${file}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return db;
}
