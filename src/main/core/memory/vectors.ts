/**
 * Vector search over chunk embeddings with sqlite-vec. Small stores are scanned exactly
 * (cosine over every stored vector); past EXACT_SCAN_MAX an in-memory first pass (sign bits,
 * then int8 over the nearest few percent: quantized.ts) picks candidates and SQLite reranks them
 * by exact cosine. sqlite-vec's own bit KNN (the vec0 table, still written) found 73% of the
 * exact top 10 of clustered vectors at 100k with 40 candidates (30% of random ones), and its cost
 * grows steeply with k; its int8 KNN took ~4x the in-memory pass at 20k (bench/memory.bench.ts).
 * The pass holds ~440 bytes per vector of 384 dimensions (~44 MB at 100k), loaded on first use.
 */
import type { Db } from '../storage/index.js';
import { QuantizedIndex } from './quantized.js';

export const EXACT_SCAN_MAX = 2000;

/**
 * The in-memory first pass of each connection, shared by every store open on it (so one's
 * writes reach another's searches); dropped when the embedder changes.
 */
const firstPasses = new WeakMap<
  Db,
  { index: QuantizedIndex; dataVersion: number; dimensions: number }
>();
const VEC_TABLE = 'memory_vec';

export interface VectorHit {
  chunkId: number;
  distance: number;
}

export class VectorIndex {
  private readonly width: number;

  constructor(
    private readonly db: Db,
    readonly embedderId: string,
    readonly dimensions: number,
  ) {
    // vec_quantize_binary wants a multiple of 8 dimensions: pad with zeros (sign bit 0 on both sides).
    this.width = Math.ceil(dimensions / 8) * 8;
  }

  /**
   * Makes the index match this embedder. A different embedder (or width) makes every stored
   * vector meaningless: they are cleared, and the chunks wait for `pending()` to embed them again.
   */
  prepare(): { reset: boolean } {
    const signature = `${this.embedderId}|${this.dimensions}`;
    const row = this.db.prepare("select value from memory_meta where key = 'embedder'").get() as
      | { value: string }
      | undefined;
    let reset = false;
    if (row?.value !== signature) {
      this.db.transaction(() => {
        this.db.exec(`drop table if exists ${VEC_TABLE}`);
        this.db.exec('update memory_chunks set embedding = null where embedding is not null');
        this.db
          .prepare("insert or replace into memory_meta (key, value) values ('embedder', ?)")
          .run(signature);
      })();
      reset = row !== undefined;
      firstPasses.delete(this.db);
    }
    this.db.exec(
      `create virtual table if not exists ${VEC_TABLE} using vec0(embedding bit[${this.width}])`,
    );
    return { reset };
  }

  /** Stores one chunk's vector (call inside the caller's transaction). */
  put(chunkId: number, vector: Float32Array): void {
    this.check(vector);
    const blob = toBlob(vector);
    this.db.prepare('update memory_chunks set embedding = ? where id = ?').run(blob, chunkId);
    this.db.prepare(`delete from ${VEC_TABLE} where rowid = ?`).run(BigInt(chunkId));
    this.db
      .prepare(`insert into ${VEC_TABLE} (rowid, embedding) values (?, vec_quantize_binary(?))`)
      // vec0 accepts only integer rowids, and better-sqlite3 binds plain numbers as REAL.
      .run(BigInt(chunkId), toBlob(this.padded(vector)));
    firstPasses.get(this.db)?.index.put(chunkId, vector);
  }

  /** Drops chunks' bit vectors; works whichever embedder (or none) this store was opened with. */
  static remove(db: Db, chunkIds: readonly number[]): void {
    const pass = firstPasses.get(db);
    for (const id of chunkIds) pass?.index.remove(id);
    const exists = db
      .prepare("select 1 from sqlite_schema where type = 'table' and name = ?")
      .get(VEC_TABLE);
    if (!exists) return;
    const del = db.prepare(`delete from ${VEC_TABLE} where rowid = ?`);
    for (const id of chunkIds) del.run(BigInt(id));
  }

  /** Chunk ids still waiting for a vector. */
  pending(limit = 1_000_000): Array<{ id: number; text: string }> {
    return this.db
      .prepare('select id, text from memory_chunks where embedding is null order by id limit ?')
      .all(limit) as Array<{ id: number; text: string }>;
  }

  count(): number {
    return (
      this.db
        .prepare('select count(*) as n from memory_chunks where embedding is not null')
        .get() as { n: number }
    ).n;
  }

  /** Whether any chunk has a vector (a search with none need not embed its query). */
  hasAny(): boolean {
    return this.moreThan(0);
  }

  /** Whether more than n chunks have a vector (walks at most n + 1 index entries). */
  private moreThan(n: number): boolean {
    return (
      (
        this.db
          .prepare(
            'select exists (select 1 from memory_chunks where embedding is not null limit 1 offset ?) as more',
          )
          .get(n) as { more: number }
      ).more === 1
    );
  }

  /** The nearest chunks by cosine distance, nearest first. */
  nearest(query: Float32Array, limit: number): VectorHit[] {
    this.check(query);
    const blob = toBlob(query);
    if (!this.moreThan(EXACT_SCAN_MAX)) {
      return this.db
        .prepare(
          `select id as chunkId, vec_distance_cosine(embedding, ?) as distance from memory_chunks
           where embedding is not null order by distance limit ?`,
        )
        .all(blob, limit) as VectorHit[];
    }
    const coarse = this.firstPass().candidates(query, Math.max(limit * 4, 40));
    if (coarse.length === 0) return [];
    return this.db
      .prepare(
        `select id as chunkId, vec_distance_cosine(embedding, ?) as distance from memory_chunks
         where id in (select value from json_each(?)) and embedding is not null
         order by distance limit ?`,
      )
      .all(blob, JSON.stringify(coarse), limit) as VectorHit[];
  }

  /**
   * The in-memory pass, loaded from the stored vectors on first use. This connection's own
   * writes keep it current; another's (the CLI beside the app) change data_version, and it is
   * read again.
   */
  private firstPass(): QuantizedIndex {
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const known = firstPasses.get(this.db);
    if (known?.dataVersion === dataVersion && known.dimensions === this.dimensions)
      return known.index;
    const index = new QuantizedIndex(this.dimensions);
    const rows = this.db
      .prepare('select id, embedding from memory_chunks where embedding is not null')
      .iterate() as IterableIterator<{ id: number; embedding: Buffer }>;
    for (const row of rows) {
      const copy = new Uint8Array(row.embedding);
      index.put(row.id, new Float32Array(copy.buffer, 0, copy.byteLength / 4));
    }
    firstPasses.set(this.db, { index, dataVersion, dimensions: this.dimensions });
    return index;
  }

  private check(vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(
        `the embedder ${this.embedderId} returned ${vector.length} dimensions, expected ${this.dimensions}`,
      );
    }
  }

  private padded(vector: Float32Array): Float32Array {
    if (vector.length === this.width) return vector;
    const out = new Float32Array(this.width);
    out.set(vector);
    return out;
  }
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
