import { type Db, StorageError } from './database.js';

/**
 * One schema step. Modules own their migrations (runs, audit, memory...) and register them under
 * their own namespace, so each evolves independently inside the one profile database.
 */
export interface Migration {
  /** 1, 2, 3 ... within its namespace; never renumbered once shipped. */
  version: number;
  description: string;
  up: string | ((db: Db) => void);
}

/**
 * Applies pending migrations of a namespace in order, each in its own transaction, and records
 * them in `schema_migrations`. A database migrated by a newer Pincer is refused rather than
 * written with an older understanding of its schema.
 */
export function migrate(db: Db, namespace: string, migrations: readonly Migration[]): number[] {
  const versions = migrations.map((m) => m.version);
  versions.forEach((version, index) => {
    if (version !== index + 1) {
      throw new StorageError(
        'bad_migration',
        `${namespace}: migrations must be numbered 1..n in order, found ${versions.join(', ')}`,
      );
    }
  });
  db.exec(`create table if not exists schema_migrations (
    namespace text not null,
    version integer not null,
    description text not null,
    applied_at text not null,
    primary key (namespace, version)
  )`);
  const current =
    (
      db
        .prepare('select max(version) as v from schema_migrations where namespace = ?')
        .get(namespace) as { v: number | null }
    ).v ?? 0;
  if (current > migrations.length) {
    throw new StorageError(
      'newer_schema',
      `${namespace}: the database is at schema version ${current}, this Pincer knows ${migrations.length}; update Pincer`,
    );
  }
  const record = db.prepare(
    'insert into schema_migrations (namespace, version, description, applied_at) values (?, ?, ?, ?)',
  );
  const applied: number[] = [];
  for (const migration of migrations.slice(current)) {
    const step = db.transaction(() => {
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      record.run(namespace, migration.version, migration.description, new Date().toISOString());
    });
    try {
      step();
    } catch (error) {
      throw new StorageError(
        'migration_failed',
        `${namespace} migration ${migration.version} (${migration.description}) failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    applied.push(migration.version);
  }
  return applied;
}
