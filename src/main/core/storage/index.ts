/** The storage module's public surface: what other modules import. */

export type { Db } from './database.js';
export { isDamagedDatabase, openDatabase, profileDatabasePath, StorageError } from './database.js';
export type { Migration } from './migrations.js';
export { migrate } from './migrations.js';
export { prepared } from './statements.js';
