/** Embedding chunk texts for the vector index, down to what the model's window takes. */
import type { Embedder } from '../models/index.js';
import { MemoryError } from './errors.js';

/** One vector per text (none without an embedder); a failure is a MemoryError. */
export async function embedTexts(
  embedder: Embedder | undefined,
  texts: string[],
): Promise<Float32Array[]> {
  if (!embedder || texts.length === 0) return [];
  try {
    const out = await embedder.embed(texts).catch(() => embedOneByOne(embedder, texts));
    if (out.length !== texts.length)
      throw new Error(`${out.length} vectors for ${texts.length} texts`);
    return out;
  } catch (error) {
    throw new MemoryError(
      'embedding_failed',
      `embedding with ${embedder.id} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * After a failed batch: each text alone, and a text the model refuses (longer than its window:
 * bge-small takes 512 tokens, and CJK or code packs many tokens into 1,200 characters) is
 * embedded by its first half, then quarter, ... The chunk keeps its full text in FTS5.
 */
async function embedOneByOne(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const text of texts) {
    let part = text;
    for (;;) {
      try {
        const [vector] = await embedder.embed([part]);
        if (!vector) throw new Error('no vector returned');
        out.push(vector);
        break;
      } catch (error) {
        if (part.length < 64) throw error;
        part = part.slice(0, Math.floor(part.length / 2));
      }
    }
  }
  return out;
}
