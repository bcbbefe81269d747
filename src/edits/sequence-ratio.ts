/**
 * Similarity of two sequences as Python's `difflib.SequenceMatcher(None, a, b).ratio()` computes it
 * (Ratcliff/Obershelp: the longest common contiguous block, then recursively left and right of it;
 * ratio = 2·matches / (|a| + |b|)). No junk heuristic: our inputs are short (a SEARCH block's lines).
 * `sequenceRatio(["a","b"], ["a","c"]) === 0.5`
 */
export function sequenceRatio<T>(a: readonly T[], b: readonly T[]): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCount(a, 0, a.length, b, 0, b.length)) / total;
}

function matchingCount<T>(a: readonly T[], alo: number, ahi: number, b: readonly T[], blo: number, bhi: number): number {
  if (alo >= ahi || blo >= bhi) return 0;
  // Longest common block; ties go to the earliest in a, then in b (as difflib does).
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  let prev = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (let j = blo; j < bhi; j++) {
      if (a[i] !== b[j]) continue;
      const k = (prev.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestSize) {
        bestI = i - k + 1;
        bestJ = j - k + 1;
        bestSize = k;
      }
    }
    prev = next;
  }
  if (bestSize === 0) return 0;
  return (
    bestSize +
    matchingCount(a, alo, bestI, b, blo, bestJ) +
    matchingCount(a, bestI + bestSize, ahi, b, bestJ + bestSize, bhi)
  );
}
