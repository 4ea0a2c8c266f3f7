/**
 * -1, 0 or 1 as `a` is below, equal to or above `b`: for sort comparators over fractional numbers
 * (distances, scores). A comparator returning `a - b` of two such numbers returns a fraction,
 * which V8 boxes on the heap at every comparison: the vector re-rank's sort alone allocated ~11 KB
 * a chat turn that way, work for the garbage collector. -1, 0 and 1 are small integers, never boxed.
 */
export function ascending(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
