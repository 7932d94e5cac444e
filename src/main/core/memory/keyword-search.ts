/** The keyword side of memory search: a free-text query as FTS5, ranked by BM25. */
import type { Db } from '../storage/index.js';
import { prepared } from '../storage/index.js';

/** Chunk ids matching `query`, best BM25 first. */
export function ftsRanking(db: Db, query: string, limit: number): number[] {
  const match = ftsQuery(query, (term) => isCommon(db, term));
  if (!match) return [];
  return (
    prepared(
      db,
      'select rowid from memory_fts where memory_fts match ? order by bm25(memory_fts) limit ?',
    ).all(match, limit) as Array<{ rowid: number }>
  ).map((r) => r.rowid);
}

/** A free-text query as an FTS5 expression: every word quoted (no syntax errors), any may match. */
export function ftsQuery(
  text: string,
  isCommon: (term: string) => boolean = () => false,
): string | undefined {
  const words = [...new Set((text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 32))];
  // Common terms are left out, unless nothing else is left.
  const rare = words.filter((w) => !isCommon(w));
  const kept = rare.length > 0 ? rare : words;
  return kept.length ? kept.map((w) => `"${w}"`).join(' OR ') : undefined;
}

/**
 * A term in more than a tenth of the chunks ("the", "and"): BM25 gives it almost no weight,
 * yet ranking its matches would read most of the index. (Terms are looked up as typed; a word
 * whose stem differs is simply kept.)
 */
function isCommon(db: Db, term: string): boolean {
  const chunks = chunkTotal(db);
  if (chunks < 1000) return false;
  const row = prepared(db, 'select doc from memory_fts_terms where term = ?').get(term) as
    | { doc: number }
    | undefined;
  return (row?.doc ?? 0) > chunks / 10;
}

function chunkTotal(db: Db): number {
  return (
    (prepared(db, 'select max(id) as n from memory_chunks').get() as { n: number | null }).n ?? 0
  );
}
