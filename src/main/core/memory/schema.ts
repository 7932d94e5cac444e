/**
 * The memory namespace of the profile database. Chunk text lives in `memory_chunks` and in an
 * FTS5 index (rowid = chunk id); vectors live in the chunk row (exact, for reranking) and, once an
 * embedder is known, in a sqlite-vec table of sign bits (for the fast first pass). The vector
 * table depends on the embedder's width, so it is created at run time, not here.
 */
import type { Migration } from '../storage/index.js';

export const MEMORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'documents, chunks, FTS5 index, key-value facts',
    up: `
      create table memory_documents (
        id integer primary key,
        source text not null unique,
        kind text not null check (kind in ('file', 'note')),
        content_hash text not null,
        bytes integer not null,
        updated_at text not null,
        indexed_at text not null
      );
      create table memory_chunks (
        id integer primary key,
        document_id integer not null references memory_documents(id) on delete cascade,
        seq integer not null,
        heading text not null,
        start_line integer not null,
        end_line integer not null,
        text text not null,
        embedding blob
      );
      create index memory_chunks_by_document on memory_chunks(document_id);
      create virtual table memory_fts using fts5(text, heading, tokenize = 'porter unicode61');
      create table memory_facts (
        scope text not null,
        key text not null,
        value text not null,
        updated_at text not null,
        primary key (scope, key)
      );
      create table memory_meta (key text primary key, value text not null);
    `,
  },
  {
    version: 2,
    description: 'partial indexes: chunks with and without a vector',
    // Without them "is any chunk waiting for a vector?" and "how many have one?" read every row.
    up: `
      create index memory_chunks_embedded on memory_chunks(id) where embedding is not null;
      create index memory_chunks_unembedded on memory_chunks(id) where embedding is null;
    `,
  },
  {
    version: 3,
    description: 'FTS5 vocabulary view: document frequency per term',
    up: `create virtual table memory_fts_terms using fts5vocab(memory_fts, 'row');`,
  },
  {
    version: 4,
    description: 'conversation summaries (compaction), one per session epoch',
    // The summarized messages stay in the runs store: a summary only says where it stands in.
    up: `
      create table memory_summaries (
        session_id text not null,
        epoch integer not null,
        covers_until text not null,
        covered integer not null,
        summary text not null,
        created_at text not null,
        primary key (session_id, epoch)
      );
    `,
  },
  {
    version: 5,
    description: "entry use and provenance: origin, reuse count, last use, a person's mark",
    // Read only by stores that declare salience, forgetting or source tracking (CKP 0.3.0).
    up: `
      alter table memory_documents add column origin text;
      alter table memory_documents add column uses integer not null default 0;
      alter table memory_documents add column last_used_at text;
      alter table memory_documents add column pinned integer not null default 0;
    `,
  },
];
