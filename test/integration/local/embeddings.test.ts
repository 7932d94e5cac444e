import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../../src/main/core/local/embeddings.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let embedder: LocalEmbedder;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-embed-'));
  const file = path.join(dir, 'embed.gguf');
  await writeTinyGguf(file, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  embedder = await LocalEmbedder.open({ modelPath: file, runtime: { gpu: false, threads: 2 } });
});

afterAll(async () => {
  await embedder?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('LocalEmbedder', () => {
  it('returns one finite vector of the model width per text, equal for equal texts', async () => {
    expect(embedder.dimensions).toBe(64);
    const [a, b, again] = await embedder.embed(['the cat sat', 'stock prices fell', 'the cat sat']);
    for (const vector of [a, b, again]) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector?.length).toBe(64);
      expect(vector?.every(Number.isFinite)).toBe(true);
    }
    expect(Array.from(again ?? [])).toEqual(Array.from(a ?? []));
    expect(Array.from(b ?? [])).not.toEqual(Array.from(a ?? []));
  });
});
