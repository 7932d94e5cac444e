/**
 * The in-memory first pass keeps the true nearest neighbours (recall@10 after an exact rerank of
 * its candidates, against an exact scan) on clustered and on random vectors; removal and
 * replacement keep it consistent. Not timed: speed is in bench/memory.bench.ts.
 */
import { describe, expect, it } from 'vitest';
import { QuantizedIndex } from '../../../src/main/core/memory/quantized.js';

const DIMS = 384;
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
const random = rng(3);
const centroids = Array.from({ length: 100 }, () =>
  Float32Array.from({ length: DIMS }, () => random() * 2 - 1),
);
const clustered = () =>
  (centroids[Math.floor(random() * centroids.length)] as Float32Array).map(
    (x) => x + (random() * 2 - 1) * 0.6,
  );
const uniform = () => Float32Array.from({ length: DIMS }, () => random() * 2 - 1);

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

function recallAt10(make: () => Float32Array, size: number): number {
  const vectors = Array.from({ length: size }, make);
  const index = new QuantizedIndex(DIMS);
  vectors.forEach((v, i) => {
    index.put(i + 1, v);
  });
  let found = 0;
  const queries = 20;
  for (let q = 0; q < queries; q++) {
    const query = make();
    const top10 = (ids: number[]) =>
      ids
        .map((id) => ({ id, s: cosine(query, vectors[id - 1] as Float32Array) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((x) => x.id);
    const truth = new Set(top10(vectors.map((_, i) => i + 1)));
    found += top10(index.candidates(query, 40)).filter((id) => truth.has(id)).length;
  }
  return found / (queries * 10);
}

describe('QuantizedIndex', () => {
  it('finds at least 95% of the exact top 10 on clustered vectors', () => {
    expect(recallAt10(clustered, 5000)).toBeGreaterThanOrEqual(0.95);
  });

  it('finds at least 95% of the exact top 10 on random vectors', () => {
    expect(recallAt10(uniform, 5000)).toBeGreaterThanOrEqual(0.95);
  });

  it('forgets a removed vector and follows a replaced one', () => {
    const index = new QuantizedIndex(8);
    const a = Float32Array.from([1, 1, 1, 1, 0, 0, 0, 0]);
    const b = Float32Array.from([0, 0, 0, 0, 1, 1, 1, 1]);
    index.put(1, a);
    index.put(2, b);
    index.put(3, Float32Array.from([1, 1, 1, 0, 0, 0, 0, 1]));
    expect(index.candidates(a, 1)).toEqual([1]);
    index.remove(1);
    expect(index.count).toBe(2);
    expect(index.candidates(a, 1)).toEqual([3]);
    index.put(2, a);
    expect(index.candidates(a, 1)).toEqual([2]);
    expect(index.candidates(b, 3).sort()).toEqual([2, 3]);
  });
});
