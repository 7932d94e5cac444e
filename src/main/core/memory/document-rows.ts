/**
 * The rows behind memory: a document (file or note) in memory_documents, its chunks in
 * memory_chunks with their FTS5 and vector entries, and what the store keeps of its use.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../storage/index.js';
import { prepared } from '../storage/index.js';
import type { Chunk } from './chunker.js';
import type { Origin, UseRecord } from './cognition.js';
import { VectorIndex } from './vectors.js';

/** What the store keeps of an entry's use (schema version 5). */
export interface DocumentUse {
  updated_at: string;
  origin: string | null;
  uses: number;
  last_used_at: string | null;
  pinned: number;
}

export function documentBySource(
  db: Db,
  source: string,
): { id: number; content_hash: string } | undefined {
  return prepared(db, 'select id, content_hash from memory_documents where source = ?').get(
    source,
  ) as { id: number; content_hash: string } | undefined;
}

export function chunkCount(db: Db, docId: number): number {
  return (
    prepared(db, 'select count(*) as n from memory_chunks where document_id = ?').get(docId) as {
      n: number;
    }
  ).n;
}

export function chunkRow(db: Db, id: number) {
  return prepared(
    db,
    `select c.heading, c.start_line, c.end_line, c.text, d.source, d.kind, d.updated_at,
            d.origin, d.uses, d.last_used_at, d.pinned
       from memory_chunks c join memory_documents d on d.id = c.document_id where c.id = ?`,
  ).get(id) as
    | (DocumentUse & {
        heading: string;
        start_line: number;
        end_line: number;
        text: string;
        source: string;
        kind: 'file' | 'note';
      })
    | undefined;
}

export function usageOf(row: DocumentUse): UseRecord {
  return {
    uses: row.uses,
    pinned: row.pinned === 1,
    origin: row.origin as Origin | null,
    lastTouchedMs: Date.parse(row.last_used_at ?? row.updated_at),
  };
}

/**
 * Indexed documents and notes with their text (chunks joined in order): one by its source, or
 * those updated within [from, to] (ISO 8601), newest first.
 */
export function readDocuments(
  db: Db,
  filter: { source?: string; from?: string; to?: string; limit?: number },
): Array<{
  source: string;
  kind: 'file' | 'note';
  text: string;
  updatedAt: string;
}> {
  const rows = prepared(
    db,
    `select d.source, d.kind, d.updated_at,
              (select group_concat(c.text, char(10)) from
                 (select text from memory_chunks where document_id = d.id order by seq) c) as text
       from memory_documents d
       where (@source is null or d.source = @source)
         and (@from is null or d.updated_at >= @from) and (@to is null or d.updated_at <= @to)
       order by d.updated_at desc, d.id desc limit @limit`,
  ).all({
    source: filter.source ?? null,
    from: filter.from ?? null,
    to: filter.to ?? null,
    limit: Math.max(1, Math.min(filter.limit ?? 100, 1000)),
  }) as Array<{
    source: string;
    kind: 'file' | 'note';
    updated_at: string;
    text: string | null;
  }>;
  return rows.map((row) => ({
    source: row.source,
    kind: row.kind,
    text: row.text ?? '',
    updatedAt: row.updated_at,
  }));
}

export function insertChunk(db: Db, docId: number, seq: number, chunk: Chunk): number {
  const id = Number(
    prepared(
      db,
      `insert into memory_chunks (document_id, seq, heading, start_line, end_line, text)
         values (?, ?, ?, ?, ?, ?)`,
    ).run(docId, seq, chunk.heading, chunk.startLine, chunk.endLine, chunk.text).lastInsertRowid,
  );
  prepared(db, 'insert into memory_fts (rowid, text, heading) values (?, ?, ?)').run(
    id,
    chunk.text,
    chunk.heading,
  );
  return id;
}

/** Deletes a document with its chunks, their FTS5 rows and vectors (call inside a transaction). */
export function deleteDocument(db: Db, docId: number): void {
  const ids = (
    prepared(db, 'select id from memory_chunks where document_id = ?').all(docId) as Array<{
      id: number;
    }>
  ).map((r) => r.id);
  const fts = prepared(db, 'delete from memory_fts where rowid = ?');
  for (const id of ids) fts.run(id);
  VectorIndex.remove(db, ids);
  prepared(db, 'delete from memory_chunks where document_id = ?').run(docId);
  prepared(db, 'delete from memory_documents where id = ?').run(docId);
}

/** The content hash a document is stored under: an unchanged file is not re-indexed. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
