/**
 * Semantic memory: documents and notes, chunked, indexed in FTS5 and (with an embedder)
 * as vectors; hybrid search fuses the two rankings by reciprocal rank fusion. The index is
 * derived data: files stay where they are, notes are stored whole, so a chunk can always be
 * rebuilt. Inputs are checked before anything is written, so a refused file changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Embedder } from '../models/index.js';
import type { Db } from '../storage/index.js';
import { migrate, prepared } from '../storage/index.js';
import { type ChunkOptions, chunkMarkdown, clip, DEFAULT_MAX_CHUNK_CHARS } from './chunker.js';
import { type MemoryPolicy, type Origin, rankFactor } from './cognition.js';
import { nearDuplicate } from './consolidation.js';
import {
  chunkCount,
  chunkRow,
  deleteDocument,
  documentBySource,
  insertChunk,
  readDocuments,
  sha256,
  usageOf,
} from './document-rows.js';
import { embedTexts } from './embedding.js';
import { MemoryError } from './errors.js';
import { FactStore } from './facts.js';
import {
  applyRetention,
  type ForgettingOutcome,
  forgetFaded,
  type Retention,
} from './forgetting.js';
import { readIndexable, realOrSelf, textFilesUnder } from './indexable-files.js';
import { ftsRanking } from './keyword-search.js';
import { fuse } from './rank-fusion.js';
import { MEMORY_MIGRATIONS } from './schema.js';
import { VectorIndex } from './vectors.js';

export interface MemoryStoreOptions {
  /** Without one, search is FTS5 only (and says so). */
  embedder?: Embedder;
  /** Larger files are refused (default 10 MiB). */
  maxFileBytes?: number;
  chunking?: ChunkOptions;
  /** Check the database with PRAGMA integrity_check before use (default true). */
  verify?: boolean;
  now?: () => Date;
  /** CKP 0.3.0 cognitive extensions the manifest's store declares (none: as before 0.3.0). */
  policy?: MemoryPolicy;
  /** Told when the policy changed a ranking or what is kept (telemetry surfaces it). */
  onEffect?: (effect: MemoryEffect) => void;
}

/** What a cognitive extension did: reordered hits, merged a note, forgot or folded notes. */
export type MemoryEffect =
  | { op: 'rank'; reordered: number; boosted: number; faded: number }
  | { op: 'merge'; source: string; similarity: number }
  | { op: 'forget'; forgotten: number; folded: number; into?: string };

export interface IndexOutcome {
  source: string;
  /** merged: a near-duplicate note updated the existing entry `source` instead of adding one. */
  status: 'indexed' | 'unchanged' | 'merged';
  chunks: number;
}

export interface SearchHit {
  chunkId: number;
  source: string;
  kind: 'file' | 'note';
  heading: string;
  startLine: number;
  endLine: number;
  text: string;
  /** Reciprocal-rank-fusion score: higher is better. */
  score: number;
  /** 1-based rank in each list that found it. */
  ranks: { fts?: number; vector?: number };
  /** Cosine similarity to the query (1 - cosine distance), when the vector search found it. */
  similarity?: number;
  /** When the document last changed (file mtime or note time), ISO 8601. */
  updatedAt: string;
  /** Where the entry came from, when the store tracks sources. */
  origin?: Origin;
  /** The salience and decay factor the fused score was multiplied by, when the policy has one. */
  salience?: number;
}

export interface SearchResult {
  mode: 'hybrid' | 'fts';
  hits: SearchHit[];
  /** Why the search was less than hybrid, or what is missing from it. */
  notice?: string;
}

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export class MemoryStore {
  readonly facts: FactStore;
  private readonly vectors: VectorIndex | undefined;
  private readonly maxFileBytes: number;
  private readonly now: () => Date;

  private constructor(
    private readonly db: Db,
    private readonly options: MemoryStoreOptions,
  ) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.now = options.now ?? (() => new Date());
    this.facts = new FactStore(db, this.now);
    this.vectors = options.embedder
      ? new VectorIndex(db, options.embedder.id, options.embedder.dimensions)
      : undefined;
  }

  /** Checks the database, applies the memory migrations and readies the vector index. */
  static open(db: Db, options: MemoryStoreOptions = {}): MemoryStore {
    if (options.verify ?? true) verifyIntegrity(db);
    migrate(db, 'memory', MEMORY_MIGRATIONS);
    const store = new MemoryStore(db, options);
    store.vectors?.prepare();
    return store;
  }

  get embedderId(): string | undefined {
    return this.options.embedder?.id;
  }

  /**
   * Indexes one file, unless its content hash says it is already indexed as it is. The file is
   * read through the workspace guard under `root` (default: its own folder): a link, or a hard
   * link that may alias a file elsewhere, is refused. It is remembered by its real path.
   */
  async indexFile(
    file: string,
    root = path.dirname(path.resolve(file)),
    options: { origin?: Origin } = {},
  ): Promise<IndexOutcome> {
    const { text, mtime, source } = await readIndexable(
      root,
      path.resolve(file),
      this.maxFileBytes,
    );
    const hash = sha256(text);
    const known = documentBySource(this.db, source);
    if (known && known.content_hash === hash) {
      return { source, status: 'unchanged', chunks: chunkCount(this.db, known.id) };
    }
    return this.store(source, 'file', text, hash, mtime.toISOString(), options.origin ?? 'file');
  }

  /** Indexes a file, or every .md/.markdown/.txt file under a folder; a bad file stops nothing. */
  async indexPath(
    target: string,
  ): Promise<{ outcomes: IndexOutcome[]; errors: Array<{ source: string; error: MemoryError }> }> {
    const outcomes: IndexOutcome[] = [];
    const errors: Array<{ source: string; error: MemoryError }> = [];
    const info = await stat(target).catch((error: unknown) => {
      throw new MemoryError('not_found', `${target} does not exist`, { cause: error });
    });
    const root = info.isDirectory() ? path.resolve(target) : undefined;
    const files = root ? await textFilesUnder(root) : [target];
    for (const file of files) {
      try {
        // Files found in a folder stay inside it: a link out of it is refused, not followed.
        outcomes.push(await this.indexFile(file, root));
      } catch (error) {
        if (!(error instanceof MemoryError)) throw error;
        errors.push({ source: path.resolve(file), error });
      }
    }
    return { outcomes, errors };
  }

  /**
   * Stores a note (kept whole in the database) and indexes it. With a merging policy, a note
   * that repeats an existing one (given no source of its own) updates that entry instead.
   * `pinned` is a person's mark: salience ranks it higher and forgetting keeps it.
   */
  async addNote(
    text: string,
    options: { source?: string; origin?: Origin; pinned?: boolean } = {},
  ): Promise<IndexOutcome> {
    if (text.trim() === '') throw new MemoryError('bad_input', 'a note needs some text');
    if (Buffer.byteLength(text) > this.maxFileBytes) {
      throw new MemoryError('too_large', `a note is limited to ${this.maxFileBytes} bytes`);
    }
    const at = this.now().toISOString();
    const twin =
      options.source === undefined
        ? await nearDuplicate(
            this.db,
            text,
            this.options.policy?.merge,
            this.vectors,
            this.options.embedder,
          )
        : undefined;
    const source =
      twin?.source ?? options.source ?? `note:${at.slice(0, 10)}-${randomUUID().slice(0, 8)}`;
    const outcome = await this.store(
      source,
      'note',
      text,
      sha256(text),
      at,
      options.origin ?? 'user',
      options.pinned,
    );
    if (!twin) return outcome;
    this.options.onEffect?.({ op: 'merge', source, similarity: twin.similarity });
    return { ...outcome, status: 'merged' };
  }

  /** Marks (or unmarks) an entry as a person's preference; false when there is no such entry. */
  mark(source: string, pinned: boolean): boolean {
    return (
      prepared(this.db, 'update memory_documents set pinned = ? where source = ?').run(
        pinned ? 1 : 0,
        source,
      ).changes > 0
    );
  }

  /** Re-reads every indexed file (unchanged ones are skipped by hash) and embeds what lacks a vector. */
  async reindex(): Promise<{
    outcomes: IndexOutcome[];
    removed: string[];
    errors: Array<{ source: string; error: MemoryError }>;
    embedded: number;
  }> {
    const files = prepared(
      this.db,
      "select source from memory_documents where kind = 'file' order by source",
    ).all() as Array<{ source: string }>;
    const outcomes: IndexOutcome[] = [];
    const removed: string[] = [];
    const errors: Array<{ source: string; error: MemoryError }> = [];
    for (const { source } of files) {
      try {
        // Stored by real path: a folder on the way that became a link now leads elsewhere.
        const folder = path.dirname(source);
        if ((await realpath(folder).catch(() => folder)) !== folder)
          throw new MemoryError(
            'refused',
            `${source}: its folder now leads elsewhere through a link; not re-read`,
          );
        outcomes.push(await this.indexFile(source));
      } catch (error) {
        if (!(error instanceof MemoryError)) throw error;
        // A file gone from disk leaves the index; one that became unreadable keeps its chunks.
        if (error.code === 'not_found') {
          this.forget(source);
          removed.push(source);
        } else errors.push({ source, error });
      }
    }
    return { outcomes, removed, errors, embedded: await this.embedPending() };
  }

  /** Embeds chunks stored without a vector (added before an embedder was configured, or a new one). */
  async embedPending(batch = 32): Promise<number> {
    const { vectors, options } = this;
    if (!vectors || !options.embedder) return 0;
    let done = 0;
    for (;;) {
      const rows = vectors.pending(batch);
      if (rows.length === 0) return done;
      const embedded = await embedTexts(
        options.embedder,
        rows.map((r) => r.text),
      );
      this.db.transaction(() => {
        rows.forEach((row, i) => {
          vectors.put(row.id, embedded[i] as Float32Array);
        });
      })();
      done += rows.length;
    }
  }

  /** Removes a document or note and its chunks; returns how many documents went. */
  forget(source: string): number {
    const resolved = source.startsWith('note:') ? source : path.resolve(source);
    const real = source.startsWith('note:') ? source : realOrSelf(resolved);
    const doc =
      documentBySource(this.db, resolved) ??
      documentBySource(this.db, real) ??
      documentBySource(this.db, source);
    if (!doc) return 0;
    this.db.transaction(() => deleteDocument(this.db, doc.id))();
    return 1;
  }

  async search(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    const limit = Math.max(1, Math.min(options.limit ?? 10, 100));
    const pool = Math.max(limit * 4, 40);
    const fts = ftsRanking(this.db, query, pool);
    let vector: number[] = [];
    const similarity = new Map<number, number>();
    let notice: string | undefined;
    if (this.vectors && !this.vectors.hasAny()) {
      // Nothing to compare with: the query is not embedded (the model may not even be loaded).
      if (this.vectors.pending(1).length > 0)
        notice = 'some chunks have no vector yet; run `pincer memory reindex` to embed them';
    } else if (this.vectors) {
      const [q] = await embedTexts(this.options.embedder, [clip(query, DEFAULT_MAX_CHUNK_CHARS)]);
      // RRF weighs the top of each list: twice the limit is enough from the vector side.
      const nearest = this.vectors.nearest(q as Float32Array, limit * 2);
      vector = nearest.map((h) => h.chunkId);
      for (const h of nearest) similarity.set(h.chunkId, 1 - h.distance);
      const missing = this.vectors.pending(1).length;
      if (missing > 0)
        notice = 'some chunks have no vector yet; run `pincer memory reindex` to embed them';
    } else {
      notice = 'no embedding model configured: keyword (FTS5) search only';
    }
    const fused = fuse([fts, vector]);
    const ranked = [...fused.entries()].sort((a, b) => b[1].score - a[1].score);
    const policy = this.options.policy;
    const weighs = policy?.salience || policy?.forgetting;
    // Salience and decay reorder within a bounded factor: twice the limit holds what they can lift.
    const top = ranked.slice(0, weighs ? limit * 2 : limit);
    let hits = top.flatMap(([chunkId, fusedHit]) => {
      const row = chunkRow(this.db, chunkId);
      if (!row) return [];
      const factor =
        weighs && policy ? rankFactor(usageOf(row), this.now().getTime(), policy) : undefined;
      return [
        {
          chunkId,
          source: row.source,
          kind: row.kind,
          heading: row.heading,
          startLine: row.start_line,
          endLine: row.end_line,
          text: row.text,
          score: fusedHit.score * (factor ?? 1),
          ranks: {
            ...(fusedHit.ranks[0] ? { fts: fusedHit.ranks[0] } : {}),
            ...(fusedHit.ranks[1] ? { vector: fusedHit.ranks[1] } : {}),
          },
          ...(similarity.has(chunkId) ? { similarity: similarity.get(chunkId) } : {}),
          updatedAt: row.updated_at,
          // Entries stored before origins were recorded: a file is a file, a note is unknown.
          ...(policy?.provenance && (row.origin ?? row.kind) !== 'note'
            ? { origin: (row.origin ?? row.kind) as Origin }
            : {}),
          ...(factor !== undefined ? { salience: factor } : {}),
        } satisfies SearchHit,
      ];
    });
    if (weighs) {
      const before = hits.slice(0, limit).map((h) => h.chunkId);
      hits = hits.sort((a, b) => b.score - a.score).slice(0, limit);
      const reordered = hits.filter((h, i) => before[i] !== h.chunkId).length;
      this.recordUse(hits);
      if (reordered > 0)
        this.options.onEffect?.({
          op: 'rank',
          reordered,
          boosted: hits.filter((h) => (h.salience ?? 1) > 1).length,
          faded: hits.filter((h) => (h.salience ?? 1) < 1).length,
        });
    }
    return { mode: this.vectors ? 'hybrid' : 'fts', hits, ...(notice ? { notice } : {}) };
  }

  /** CKP retention for notes: older than maxAge, or beyond the newest maxEntries, are deleted. */
  applyRetention(retention: Retention): number {
    return applyRetention(this.db, this.now, retention);
  }

  /**
   * Forgetting as the policy declares it (see forgetFaded): faded notes are deleted, or folded
   * into one summary note (by `summarize` when given, e.g. the session's model). Without a
   * forgetting policy nothing happens.
   */
  async applyForgetting(
    options: { summarize?: (texts: string[]) => Promise<string> } = {},
  ): Promise<ForgettingOutcome> {
    const forgetting = this.options.policy?.forgetting;
    if (!forgetting) return { forgotten: 0, folded: 0 };
    const outcome = await forgetFaded(
      this.db,
      this.now,
      forgetting,
      (into, summary, origin) =>
        this.store(into, 'note', summary, sha256(summary), this.now().toISOString(), origin),
      options.summarize,
    );
    if (outcome.forgotten > 0) this.options.onEffect?.({ op: 'forget', ...outcome });
    return outcome;
  }

  /**
   * Indexed documents and notes with their text (chunks joined in order): one by its source, or
   * those updated within [from, to] (ISO 8601), newest first.
   */
  documents(filter: { source?: string; from?: string; to?: string; limit?: number }): Array<{
    source: string;
    kind: 'file' | 'note';
    text: string;
    updatedAt: string;
  }> {
    return readDocuments(this.db, filter);
  }

  stats(): { documents: number; notes: number; chunks: number; embedded: number } {
    const count = (sql: string) => (prepared(this.db, sql).get() as { n: number }).n;
    return {
      documents: count("select count(*) as n from memory_documents where kind = 'file'"),
      notes: count("select count(*) as n from memory_documents where kind = 'note'"),
      chunks: count('select count(*) as n from memory_chunks'),
      embedded: count('select count(*) as n from memory_chunks where embedding is not null'),
    };
  }

  /** Replaces a document's chunks in one transaction (vectors are computed before it starts). */
  private async store(
    source: string,
    kind: 'file' | 'note',
    text: string,
    hash: string,
    updatedAt: string,
    origin: Origin,
    pinned?: boolean,
  ): Promise<IndexOutcome> {
    const chunks = chunkMarkdown(text, this.options.chunking);
    const vectors = this.vectors
      ? await embedTexts(
          this.options.embedder,
          chunks.map((c) => clip(c.text, DEFAULT_MAX_CHUNK_CHARS)),
        )
      : undefined;
    this.db.transaction(() => {
      const old = documentBySource(this.db, source);
      // A changed entry keeps its history of use and a person's mark.
      const kept = old
        ? (prepared(
            this.db,
            'select uses, last_used_at, pinned from memory_documents where id = ?',
          ).get(old.id) as { uses: number; last_used_at: string | null; pinned: number })
        : { uses: 0, last_used_at: null, pinned: 0 };
      if (old) deleteDocument(this.db, old.id);
      const docId = Number(
        prepared(
          this.db,
          `insert into memory_documents
             (source, kind, content_hash, bytes, updated_at, indexed_at, origin, uses, last_used_at, pinned)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          source,
          kind,
          hash,
          Buffer.byteLength(text),
          updatedAt,
          this.now().toISOString(),
          origin,
          kept.uses,
          kept.last_used_at,
          pinned === undefined ? kept.pinned : pinned ? 1 : 0,
        ).lastInsertRowid,
      );
      chunks.forEach((chunk, seq) => {
        const id = insertChunk(this.db, docId, seq, chunk);
        const vector = vectors?.[seq];
        if (vector) this.vectors?.put(id, vector);
      });
    })();
    return { source, status: 'indexed', chunks: chunks.length };
  }

  /** Each document a search returned was reused, now (once per document, however many chunks). */
  private recordUse(hits: readonly SearchHit[]): void {
    const at = this.now().toISOString();
    const update = prepared(
      this.db,
      'update memory_documents set uses = uses + 1, last_used_at = ? where source = ?',
    );
    this.db.transaction(() => {
      for (const source of new Set(hits.map((h) => h.source))) update.run(at, source);
    })();
  }
}

/** Runs PRAGMA integrity_check; a damaged database is reported, never repaired or recreated. */
export function verifyIntegrity(db: Db): void {
  let rows: Array<{ integrity_check: string }>;
  try {
    rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
  } catch (error) {
    throw new MemoryError(
      'corrupt_database',
      `the database ${db.name} is damaged (${(error as Error).message}); it was left untouched: restore it from a backup or move it aside`,
      {
        cause: error,
      },
    );
  }
  const problems = rows.map((r) => r.integrity_check).filter((line) => line !== 'ok');
  if (problems.length > 0) {
    throw new MemoryError(
      'corrupt_database',
      `the database ${db.name} failed PRAGMA integrity_check (${problems.length} problem(s), first: ${problems[0]}); it was left untouched: restore it from a backup or move it aside`,
    );
  }
}
