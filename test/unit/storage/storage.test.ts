import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  openDatabase,
  profileDatabasePath,
  StorageError,
} from '../../../src/main/core/storage/index.js';
import { type Migration, migrate } from '../../../src/main/core/storage/migrations.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-db-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const notes: Migration[] = [
  {
    version: 1,
    description: 'notes',
    up: 'create table notes (id integer primary key, body text not null)',
  },
  { version: 2, description: 'note tags', up: 'alter table notes add column tag text' },
];

describe('profile database', () => {
  it('opens a WAL database with foreign keys and sqlite-vec, creating its folder', () => {
    const file = profileDatabasePath(dir);
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.prepare('select vec_version() as v').get()).toEqual({
      v: expect.stringMatching(/^v0\.1\./),
    });
    const distance = db
      .prepare('select vec_distance_l2(?, ?) as d')
      .get(new Float32Array([0, 0]), new Float32Array([3, 4])) as { d: number };
    expect(distance.d).toBeCloseTo(5);
    db.close();
  });

  it('refuses a file that is not a database with a coded error', async () => {
    const file = path.join(dir, 'junk.db');
    await writeFile(file, 'this is not sqlite, just text that is long enough to be a header');
    expect(() => openDatabase(file)).toThrowError(StorageError);
    expect(() => openDatabase(file)).toThrow(/cannot open database .*junk\.db/);
  });

  it('applies migrations once, in order, and records them', () => {
    const db = openDatabase(':memory:');
    expect(migrate(db, 'notes', notes)).toEqual([1, 2]);
    expect(migrate(db, 'notes', notes)).toEqual([]);
    db.prepare('insert into notes (body, tag) values (?, ?)').run('hi', 'x');
    const rows = db.prepare('select namespace, version from schema_migrations').all();
    expect(rows).toEqual([
      { namespace: 'notes', version: 1 },
      { namespace: 'notes', version: 2 },
    ]);
    db.close();
  });

  it('rolls back a failing migration and leaves earlier ones applied', () => {
    const db = openDatabase(':memory:');
    const broken: Migration[] = [
      notes[0] as Migration,
      {
        version: 2,
        description: 'broken',
        up: 'create table t (a); alter table nope add column b',
      },
    ];
    expect(() => migrate(db, 'notes', broken)).toThrow(/notes migration 2 \(broken\) failed/);
    const tables = db
      .prepare("select name from sqlite_schema where type = 'table' order by name")
      .all();
    expect(tables).toEqual([{ name: 'notes' }, { name: 'schema_migrations' }]);
    db.close();
  });

  it('refuses a database migrated by a newer version', () => {
    const db = openDatabase(':memory:');
    migrate(db, 'notes', notes);
    expect(() => migrate(db, 'notes', notes.slice(0, 1))).toThrow(
      /schema version 2, this Pincer knows 1/,
    );
    db.close();
  });

  it('refuses gaps in migration numbering', () => {
    const db = openDatabase(':memory:');
    const gap: Migration[] = [{ ...(notes[0] as Migration), version: 2 }];
    expect(() => migrate(db, 'notes', gap)).toThrow(/numbered 1\.\.n/);
    db.close();
  });
});
