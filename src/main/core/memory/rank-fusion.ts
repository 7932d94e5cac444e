/** Reciprocal rank fusion: how hybrid search merges the keyword and the vector ranking. */

/** The constant of reciprocal rank fusion (Cormack et al.): damps the weight of top ranks. */
const RRF_K = 60;

/** Sum of 1/(k + rank) over the rankings that contain each id. */
export function fuse(
  rankings: ReadonlyArray<readonly number[]>,
): Map<number, { score: number; ranks: Array<number | undefined> }> {
  const out = new Map<number, { score: number; ranks: Array<number | undefined> }>();
  rankings.forEach((ranking, list) => {
    ranking.forEach((id, index) => {
      const entry = out.get(id) ?? { score: 0, ranks: [] };
      entry.score += 1 / (RRF_K + index + 1);
      entry.ranks[list] = index + 1;
      out.set(id, entry);
    });
  });
  return out;
}
