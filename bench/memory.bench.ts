/**
 * Memory (#10): indexing throughput (chunks/s through MemoryStore: chunking, FTS5, vectors) and
 * search latency p50/p95 over 10k and 100k chunks of 384-dim vectors on a WAL file database.
 * Baseline: FTS5-only search on the same database, timed in the same process, interleaved.
 *
 * Vectors come from a seeded generator, not a model (the embedding model's own time is not part
 * of the index), of two kinds: clustered like real embeddings (1,000 centroids plus noise), and
 * uniformly random (no structure: the hard case for any quantized first pass). Texts are
 * Zipf-distributed pseudo-words, so FTS5 posting lists are as skewed as in prose.
 *
 * The vector side is compared in the same run: before = sqlite-vec's bit KNN (40 candidates)
 * then exact rerank; after = the store's first pass (in-memory bits then int8, quantized.ts)
 * then exact rerank. Recall@10 is against an exact cosine scan of every stored vector.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../src/main/core/memory/store.js';
import { VectorIndex } from '../src/main/core/memory/vectors.js';
import type { Embedder } from '../src/main/core/models/embedder.js';
import { openDatabase } from '../src/main/core/storage/database.js';
import { type BenchResult, report } from './lib.js';

const DIMS = 384;
const SECTIONS_PER_DOC = 10;
const QUERIES = 200;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const random = rng(42);
const SYLLABLES = 'ka lo mi nu pe ra si to va ze bo du fi gu ha je'.split(' ');
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => {
  let word = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length))
    word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
/** Zipf-like: low indexes are common. */
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)] as string;
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');

const CENTROIDS = Array.from({ length: 1000 }, () =>
  Float32Array.from({ length: DIMS }, () => random() * 2 - 1),
);
function clustered(noise = 0.6): Float32Array {
  const centroid = CENTROIDS[Math.floor(random() * CENTROIDS.length)] as Float32Array;
  return centroid.map((x) => x + (random() * 2 - 1) * noise);
}

const uniform = () => Float32Array.from({ length: DIMS }, () => random() * 2 - 1);
type Kind = 'clustered' | 'random';
const vectorOf = (kind: Kind) => (kind === 'clustered' ? clustered() : uniform());

/** Vectors as an embedding model would hand them over, minus the model. */
const seededEmbedder = (kind: Kind): Embedder => ({
  id: `bench-${kind}-384`,
  dimensions: DIMS,
  embed: async (texts) => texts.map(() => vectorOf(kind)),
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface Timing {
  p50: number;
  p95: number;
  samples: number[];
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), samples };
}

async function scenario(chunks: number, kind: Kind): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-memory-'));
  const file = path.join(dir, 'pincer.db');
  try {
    const db = openDatabase(file);
    const embedder = seededEmbedder(kind);
    const hybrid = MemoryStore.open(db, { embedder });
    const docs = chunks / SECTIONS_PER_DOC;
    const started = process.hrtime.bigint();
    for (let d = 0; d < docs; d++) {
      const text = Array.from(
        { length: SECTIONS_PER_DOC },
        (_, s) => `## Section ${s} ${word()}\n${sentence(40)}`,
      ).join('\n\n');
      await hybrid.addNote(text, { source: `note:bench-${d}` });
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const stats = hybrid.stats();
    console.log(
      `\nmemory (${kind} vectors): ${stats.chunks} chunks (${docs} documents) indexed in ${seconds.toFixed(1)} s: ` +
        `${Math.round(stats.chunks / seconds)} chunks/s (chunking + FTS5 + vec0 + exact vectors, one transaction per document)`,
    );
    const ftsOnly = MemoryStore.open(db, { verify: false });

    const queries = Array.from({ length: QUERIES }, () => sentence(3));
    // The first search loads the in-memory pass (once per process): not a query's time.
    await hybrid.search(queries[0] as string, { limit: 10 });
    const hybridMs: number[] = [];
    const ftsMs: number[] = [];
    for (const query of queries) {
      let t = process.hrtime.bigint();
      await ftsOnly.search(query, { limit: 10 });
      ftsMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      await hybrid.search(query, { limit: 10 });
      hybridMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const h = timing(hybridMs);
    const f = timing(ftsMs);
    const results: BenchResult[] = [
      { name: `FTS5 only, top 10 (${chunks} chunks)`, medianNs: f.p50 * 1e6, samples: QUERIES },
      { name: `hybrid FTS5 + vectors, RRF, top 10`, medianNs: h.p50 * 1e6, samples: QUERIES },
    ];
    report(`memory search, ${chunks} ${kind} chunks x ${DIMS} dims, WAL file`, results);
    console.log(
      `  hybrid p50 ${h.p50.toFixed(2)} ms  p95 ${h.p95.toFixed(2)} ms   |   FTS5 p50 ${f.p50.toFixed(2)} ms  p95 ${f.p95.toFixed(2)} ms   (${QUERIES} queries)`,
    );

    // Recall of the vector side against an exact cosine scan of every stored vector.
    const exact = db.prepare(
      `select id from memory_chunks where embedding is not null
       order by vec_distance_cosine(embedding, ?) limit 10`,
    );
    const before = db.prepare(
      `select rowid from memory_vec where embedding match vec_quantize_binary(?) and k = 40`,
    );
    const rerank = db.prepare(
      `select id from memory_chunks where id in (select value from json_each(?))
       order by vec_distance_cosine(embedding, ?) limit 10`,
    );
    const after = new VectorIndex(db, embedder.id, DIMS);
    const found = { before: 0, after: 0 };
    const exactMs: number[] = [];
    const beforeMs: number[] = [];
    const afterMs: number[] = [];
    const recallQueries = 20;
    for (let i = 0; i < recallQueries; i++) {
      const q = vectorOf(kind);
      const blob = Buffer.from(q.buffer);
      let t = process.hrtime.bigint();
      const truth = new Set((exact.all(blob) as Array<{ id: number }>).map((r) => r.id));
      exactMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      const ids = (before.all(blob) as Array<{ rowid: number }>).map((r) => Number(r.rowid));
      const got = rerank.all(JSON.stringify(ids), blob) as Array<{ id: number }>;
      beforeMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      found.before += got.filter((r) => truth.has(r.id)).length;
      t = process.hrtime.bigint();
      const hits = after.nearest(q, 10);
      afterMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      found.after += hits.filter((h) => truth.has(h.chunkId)).length;
    }
    const e = timing(exactMs);
    const b = timing(beforeMs);
    const a = timing(afterMs);
    const pct = (n: number) => `${((n / (recallQueries * 10)) * 100).toFixed(0)}%`;
    console.log(
      `  vector side, ${kind}, ${recallQueries} queries (exact cosine scan p50 ${e.p50.toFixed(1)} ms):\n` +
        `    before: sqlite-vec bits k=40 + rerank  recall@10 ${pct(found.before)}  p50 ${b.p50.toFixed(2)} ms  p95 ${b.p95.toFixed(2)} ms\n` +
        `    after:  in-memory bits -> int8 + rerank recall@10 ${pct(found.after)}  p50 ${a.p50.toFixed(2)} ms  p95 ${a.p95.toFixed(2)} ms  (ratio after/before p50 ${(a.p50 / b.p50).toFixed(2)}x)` +
        `${chunks <= 2000 ? '\n    (stores up to 2,000 chunks are scanned exactly anyway)' : ''}`,
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const sizes = (process.env.PINCER_BENCH_MEMORY_SIZES ?? '10000,100000')
    .split(',')
    .map((n) => Number.parseInt(n, 10));
  const kinds = (process.env.PINCER_BENCH_MEMORY_KINDS ?? 'clustered,random').split(',') as Kind[];
  for (const size of sizes) for (const kind of kinds) await scenario(size, kind);
  console.log(
    '\n  target: hybrid p95 <= 25 ms and vector recall@10 >= 95% vs exact at 100k chunks, both kinds (query embedding time not included: it depends on the model)',
  );
}
