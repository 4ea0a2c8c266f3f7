/**
 * How the hybrid search orders what its two indexes found (KnowledgeService.search): reciprocal
 * rank fusion, then each index's best hits kept among the first.
 */
import { ascending } from './ascending.js';

/** Reciprocal rank fusion constant (Cormack et al.): damps the weight of the very first ranks. */
const RRF_K = 60;

export interface FusedHit {
  score: number;
  keywordMatch: boolean;
  distance: number | null;
}

/** Both indexes' hits, best first, by the sum of 1 / (RRF_K + rank); equal scores: the older chunk first. */
export function fusedRanking(
  keywordHits: ReadonlyArray<{ chunkId: number }>,
  vectorHits: ReadonlyArray<{ chunkId: number; distance: number }>,
): Array<[number, FusedHit]> {
  const fused = new Map<number, FusedHit>();
  keywordHits.forEach((hit, rank) => {
    fused.set(hit.chunkId, { score: 1 / (RRF_K + rank + 1), keywordMatch: true, distance: null });
  });
  vectorHits.forEach((hit, rank) => {
    const entry = fused.get(hit.chunkId) ?? { score: 0, keywordMatch: false, distance: null };
    entry.score += 1 / (RRF_K + rank + 1);
    entry.distance = hit.distance;
    fused.set(hit.chunkId, entry);
  });
  return [...fused.entries()].sort((a, b) => ascending(b[1].score, a[1].score) || a[0] - b[0]);
}

/**
 * The first `limit` of the fused order, each index's two best hits kept among them: rank fusion
 * (k = 60, flat) can bury the passages one index is surest of under several that both indexes found
 * middling (with a weak embedder, or keyword hits on a common word), and the model would never
 * read them. A best hit left out takes the place of the last passage not kept this way, the first
 * of each index before the second; the order stays the fused one.
 */
export function keepFirsts<T extends { entry: [number, unknown]; qa: number }>(
  ordered: T[],
  firsts: Array<number | undefined>,
  limit: number,
): T[] {
  const top = ordered.slice(0, limit);
  const firstIds = new Set(firsts);
  for (const id of firsts) {
    if (id === undefined || top.some((t) => t.entry[0] === id)) continue;
    const kept = ordered.find((t) => t.entry[0] === id);
    // a matching Q&A (ahead of all, qa 0) is not given up either
    const out = top.findLastIndex((t) => !firstIds.has(t.entry[0]) && t.qa !== 0);
    if (!kept || out < 0) continue;
    top.splice(out, 1);
    top.push(kept);
    top.sort((a, b) => ordered.indexOf(a) - ordered.indexOf(b));
  }
  return top;
}
