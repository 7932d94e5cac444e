/** The two-stage vector search (sign bits in vec0, exact cosine rerank) past EXACT_SCAN_MAX. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY_MIGRATIONS } from '../../../src/main/core/memory/schema.js';
import { EXACT_SCAN_MAX, VectorIndex } from '../../../src/main/core/memory/vectors.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { migrate } from '../../../src/main/core/storage/migrations.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

describe('VectorIndex', () => {
  it('finds stored vectors through the bit pass and reranks exactly (odd width padded)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-vec-'));
    dirs.push(dir);
    const db = openDatabase(path.join(dir, 'pincer.db'));
    migrate(db, 'memory', MEMORY_MIGRATIONS);
    const dims = 60; // not a multiple of 8: exercises the padding
    const index = new VectorIndex(db, 'test-random', dims);
    index.prepare();
    const rand = seeded(7);
    const vectors: Float32Array[] = [];
    const count = EXACT_SCAN_MAX + 1000;
    db.transaction(() => {
      db.prepare(
        `insert into memory_documents (id, source, kind, content_hash, bytes, updated_at, indexed_at)
         values (1, 'note:x', 'note', 'h', 0, '2026-01-01', '2026-01-01')`,
      ).run();
      const chunk = db.prepare(
        "insert into memory_chunks (id, document_id, seq, heading, start_line, end_line, text) values (?, 1, ?, '', 1, 1, 't')",
      );
      for (let i = 1; i <= count; i++) {
        const v = new Float32Array(dims).map(() => rand());
        vectors.push(v);
        chunk.run(i, i);
        index.put(i, v);
      }
    })();
    expect(index.count()).toBe(count);
    for (const id of [1, 2500, count]) {
      const query = (vectors[id - 1] as Float32Array).map((x) => x * 1.01 + 0.001);
      const hits = index.nearest(query, 5);
      expect(hits[0]?.chunkId).toBe(id);
      expect(hits[0]?.distance).toBeLessThan(0.01);
      // Exact cosine order within the candidates.
      for (let i = 1; i < hits.length; i++)
        expect(hits[i]?.distance).toBeGreaterThanOrEqual(hits[i - 1]?.distance ?? 0);
    }
    expect(() => index.nearest(new Float32Array(8), 5)).toThrow(/60/);

    // Another embedder: every vector is stale, so they are cleared and wait to be re-embedded.
    const other = new VectorIndex(db, 'another-model', 32);
    expect(other.prepare()).toEqual({ reset: true });
    expect(other.count()).toBe(0);
    expect(other.pending(10)).toHaveLength(10);
    db.close();
  });
});
