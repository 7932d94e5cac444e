/** The storage module's public surface: what other modules import. */

export type { Db } from './database.js';
export { openDatabase, StorageError } from './database.js';
export type { Migration } from './migrations.js';
export { migrate } from './migrations.js';
export { privateDir, privateFile, privateProfileDatabase } from './private-files.js';
export { isDamagedDatabase, profileDatabasePath } from './profile-files.js';
export { prepared } from './statements.js';
