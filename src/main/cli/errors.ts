import { isDamagedDatabase, profileDatabasePath } from '../core/storage/index.js';
import type { CliContext } from './context.js';

/**
 * What a failed command prints. A damaged database is named, with what to do about it: SQLite's
 * own "database disk image is malformed" does not say which file.
 */
export function describeError(ctx: CliContext, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!isDamagedDatabase(error)) return message;
  return `the database ${profileDatabasePath(ctx.dataDir)} is damaged (${message}); it was left untouched: restore it from a backup or move it aside`;
}
