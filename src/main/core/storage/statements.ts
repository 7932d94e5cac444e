/**
 * Prepared statements kept per connection and SQL text: preparing costs more than running the
 * small statements the stores issue on every turn. A statement is never put in pluck, raw or
 * expand mode through here, so every user of the same text gets the same behaviour.
 */
import type Database from 'better-sqlite3';
import type { Db } from './database.js';

const byConnection = new WeakMap<Db, Map<string, Database.Statement>>();

export function prepared(db: Db, sql: string): Database.Statement {
  let statements = byConnection.get(db);
  if (!statements) {
    statements = new Map();
    byConnection.set(db, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
