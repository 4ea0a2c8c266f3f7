import { describe, expect, it } from 'vitest';
import { ascending } from '../../src/modules/knowledge/ascending.js';

describe('ascending (the comparator of distances and scores)', () => {
  it('orders fractional numbers as subtraction does, ties left to the next key, and answers only -1, 0 or 1', () => {
    const distances = [0.25, -0.5, 0.125, 0.25, 1e-9, -1e-9, Math.SQRT1_2, 0];
    const rows = distances.map((distance, chunkId) => ({ chunkId, distance }));
    const bySubtraction = [...rows].sort((a, b) => a.distance - b.distance || b.chunkId - a.chunkId);
    const byAscending = [...rows].sort((a, b) => ascending(a.distance, b.distance) || b.chunkId - a.chunkId);
    expect(byAscending).toEqual(bySubtraction);
    // the tie at 0.25: the larger id first, as the re-rank orders equal distances
    expect(byAscending.filter((r) => r.distance === 0.25).map((r) => r.chunkId)).toEqual([3, 0]);
    const answers = new Set(distances.flatMap((a) => distances.map((b) => ascending(a, b))));
    expect([...answers].sort()).toEqual([-1, 0, 1]);
    // descending, as the rank fusion sorts scores
    expect([0.016, 0.033, 0.0164].sort((a, b) => ascending(b, a))).toEqual([0.033, 0.0164, 0.016]);
  });
});
