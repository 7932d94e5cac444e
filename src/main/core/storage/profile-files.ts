/**
 * Where a profile's database lives and how its damage shows: what every command's error path
 * needs, kept apart from the SQLite driver so that `pincer --version` does not load it.
 */
import path from 'node:path';

/**
 * True for SQLite's "the file is damaged" errors (SQLITE_CORRUPT*, SQLITE_NOTADB), which a
 * damaged page raises at the first query that reads it, long after a clean open.
 */
export function isDamagedDatabase(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && (error as { code?: unknown }).code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
  );
}

/** The profile database's path inside the data directory. */
export function profileDatabasePath(dataDir: string, profile = 'default'): string {
  return path.join(dataDir, 'profiles', profile, 'pincer.db');
}
