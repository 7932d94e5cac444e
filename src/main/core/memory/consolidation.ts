/** Consolidation: a new note that repeats an existing one updates it instead (CKP 0.3.0 merge). */
import type { Embedder } from '../models/index.js';
import type { Db } from '../storage/index.js';
import { clip, DEFAULT_MAX_CHUNK_CHARS } from './chunker.js';
import { type MemoryPolicy, wordOverlap } from './cognition.js';
import { chunkRow, readDocuments } from './document-rows.js';
import { embedTexts } from './embedding.js';
import { ftsRanking } from './keyword-search.js';
import type { VectorIndex } from './vectors.js';

/**
 * The existing note `text` repeats, when the policy merges: by cosine similarity of the
 * nearest vector, else by word overlap with the best keyword matches.
 */
export async function nearDuplicate(
  db: Db,
  text: string,
  merge: MemoryPolicy['merge'],
  vectors: VectorIndex | undefined,
  embedder: Embedder | undefined,
): Promise<{ source: string; similarity: number } | undefined> {
  if (!merge) return undefined;
  const noteOf = (chunkId: number) => {
    const row = chunkRow(db, chunkId);
    return row?.kind === 'note' ? row : undefined;
  };
  if (vectors?.hasAny()) {
    const [q] = await embedTexts(embedder, [clip(text, DEFAULT_MAX_CHUNK_CHARS)]);
    for (const hit of vectors.nearest(q as Float32Array, 5)) {
      const similarity = 1 - hit.distance;
      if (similarity < merge.similarity) break;
      const row = noteOf(hit.chunkId);
      if (row) return { source: row.source, similarity };
    }
    return undefined;
  }
  let best: { source: string; similarity: number } | undefined;
  for (const chunkId of ftsRanking(db, text, 5)) {
    const row = noteOf(chunkId);
    if (!row) continue;
    const whole = readDocuments(db, { source: row.source, limit: 1 })[0]?.text ?? row.text;
    const similarity = wordOverlap(text, whole);
    if (similarity >= merge.similarity && similarity > (best?.similarity ?? 0))
      best = { source: row.source, similarity };
  }
  return best;
}
