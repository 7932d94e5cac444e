/**
 * The in-memory first pass of vector search over a large store: every vector as sign bits
 * (Hamming distance, a full scan in a few milliseconds) and as int8 (scaled per vector, which
 * cosine ignores). A query takes the nearest few percent by Hamming distance, ranks those by
 * int8 cosine, and hands a short list to the exact float rerank in SQLite. Sign bits alone keep
 * too few of the true neighbours of vectors without strong clusters; int8 over the whole store
 * costs ~10x the bit scan. Measured in bench/memory.bench.ts.
 */

export interface QuantizedOptions {
  /** Share of the store the bit pass keeps for the int8 pass (default 5%). */
  share?: number;
  /** Fewest candidates the bit pass keeps (default 1,000). */
  minCandidates?: number;
}

export class QuantizedIndex {
  private readonly words: number;
  private ids = new Int32Array(1024);
  private bits: Uint32Array;
  private bytes: Int8Array;
  /** 1 / the norm of each int8 row (cosine without a square root per candidate). */
  private inverseNorms: Float32Array;
  private size = 0;
  /** Row of each chunk id, for replacing and removing. */
  private readonly rowOf = new Map<number, number>();

  constructor(
    private readonly dimensions: number,
    private readonly options: QuantizedOptions = {},
  ) {
    this.words = Math.ceil(dimensions / 32);
    this.bits = new Uint32Array(1024 * this.words);
    this.bytes = new Int8Array(1024 * dimensions);
    this.inverseNorms = new Float32Array(1024);
  }

  get count(): number {
    return this.rowOf.size;
  }

  put(chunkId: number, vector: Float32Array): void {
    let row = this.rowOf.get(chunkId);
    if (row === undefined) {
      if (this.size === this.ids.length) this.grow();
      row = this.size++;
      this.rowOf.set(chunkId, row);
    }
    this.ids[row] = chunkId;
    const w = row * this.words;
    this.bits.fill(0, w, w + this.words);
    let max = 0;
    for (let i = 0; i < this.dimensions; i++) {
      const x = vector[i] as number;
      if (x > 0) this.bits[w + (i >> 5)] = (this.bits[w + (i >> 5)] as number) | (1 << (i & 31));
      max = Math.max(max, Math.abs(x));
    }
    const scale = max > 0 ? 127 / max : 0;
    const b = row * this.dimensions;
    let norm = 0;
    for (let i = 0; i < this.dimensions; i++) {
      const x = Math.round((vector[i] as number) * scale);
      this.bytes[b + i] = x;
      norm += x * x;
    }
    this.inverseNorms[row] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }

  remove(chunkId: number): void {
    const row = this.rowOf.get(chunkId);
    if (row === undefined) return;
    // The last row moves into the hole.
    const last = --this.size;
    this.rowOf.delete(chunkId);
    if (row !== last) {
      const moved = this.ids[last] as number;
      this.ids[row] = moved;
      this.bits.copyWithin(row * this.words, last * this.words, (last + 1) * this.words);
      this.bytes.copyWithin(
        row * this.dimensions,
        last * this.dimensions,
        (last + 1) * this.dimensions,
      );
      this.inverseNorms[row] = this.inverseNorms[last] as number;
      this.rowOf.set(moved, row);
    }
  }

  /** Chunk ids likely nearest to `query`, best first by int8 cosine; `keep` of them. */
  candidates(query: Float32Array, keep: number): number[] {
    const n = this.size;
    if (n === 0) return [];
    const { words, dimensions } = this;
    const q = new Uint32Array(words);
    for (let i = 0; i < dimensions; i++)
      if ((query[i] as number) > 0) q[i >> 5] = (q[i >> 5] as number) | (1 << (i & 31));
    const distance = new Uint16Array(n);
    const histogram = new Uint32Array(dimensions + 1);
    const bits = this.bits;
    for (let row = 0, w = 0; row < n; row++, w += words) {
      let d = 0;
      for (let k = 0; k < words; k++) {
        const x = (bits[w + k] as number) ^ (q[k] as number);
        d += (POPCOUNT16[x & 0xffff] as number) + (POPCOUNT16[x >>> 16] as number);
      }
      distance[row] = d;
      histogram[d] = (histogram[d] as number) + 1;
    }
    // The Hamming radius that holds the wanted share of the store.
    const wanted = Math.max(
      this.options.minCandidates ?? 1000,
      Math.ceil(n * (this.options.share ?? 0.05)),
    );
    let radius = 0;
    for (
      let seen = 0;
      radius < dimensions && seen + (histogram[radius] as number) < wanted;
      radius++
    )
      seen += histogram[radius] as number;
    let qmax = 0;
    for (let i = 0; i < dimensions; i++) qmax = Math.max(qmax, Math.abs(query[i] as number));
    const qs = new Int8Array(dimensions);
    for (let i = 0; i < dimensions; i++)
      qs[i] = qmax > 0 ? Math.round(((query[i] as number) * 127) / qmax) : 0;
    const scored: Array<{ id: number; score: number }> = [];
    const bytes = this.bytes;
    for (let row = 0; row < n; row++) {
      if ((distance[row] as number) > radius) continue;
      const b = row * dimensions;
      let dot = 0;
      for (let i = 0; i < dimensions; i++) dot += (bytes[b + i] as number) * (qs[i] as number);
      scored.push({ id: this.ids[row] as number, score: dot * (this.inverseNorms[row] as number) });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, keep).map((s) => s.id);
  }

  private grow(): void {
    const capacity = this.ids.length * 2;
    const ids = new Int32Array(capacity);
    ids.set(this.ids);
    const bits = new Uint32Array(capacity * this.words);
    bits.set(this.bits);
    const bytes = new Int8Array(capacity * this.dimensions);
    bytes.set(this.bytes);
    const inverseNorms = new Float32Array(capacity);
    inverseNorms.set(this.inverseNorms);
    this.inverseNorms = inverseNorms;
    this.ids = ids;
    this.bits = bits;
    this.bytes = bytes;
  }
}

/** Set bits of every 16-bit value: two lookups count a 32-bit word. */
const POPCOUNT16 = (() => {
  const table = new Uint8Array(65536);
  for (let i = 1; i < 65536; i++) table[i] = (table[i >> 1] as number) + (i & 1);
  return table;
})();
