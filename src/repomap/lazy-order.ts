// Typed-array reads here end in `!`: every index is a loop bound taken from the arrays' own lengths, or an offset
// from the `*Start` / `items` arrays built together with the arrays they index, so each read is in bounds. These
// are the ranking's hot loops over typed arrays; a check per read would say nothing more.

/** Candidates ordered best first, sorted only as far as someone reads. */
export interface LazyOrder {
  readonly size: number;
  /** The first `count` candidates in order (all of them when there are fewer). */
  head(count: number): readonly number[];
}

/** The smallest batch sorted at once: below this, selecting costs more than sorting. */
const MIN_BATCH = 512;

/**
 * Order `candidates` by `score` descending, then `tie` descending — what a full sort with that comparator gives —
 * but sort in batches: each call that reads past the sorted part selects the next best batch (a threshold found
 * by quickselect, every candidate at or above it taken so equal scores stay together) and sorts only that. A map
 * of a thousand tokens reads a few hundred of 50,000 ranked definitions, so most are never sorted.
 * Example: `lazyOrder(Float64Array.of(1, 3, 2), Int32Array.of(0, 1, 2), Int32Array.of(0, 1, 2)).head(2)` → [1, 2].
 */
export function lazyOrder(score: ArrayLike<number>, tie: ArrayLike<number>, candidates: Int32Array): LazyOrder {
  const sorted: number[] = [];
  // The unsorted candidates are rest[0, restLength): a copy, partitioned in place batch after batch.
  const rest = Int32Array.from(candidates);
  let restLength = rest.length;
  const better = (a: number, b: number): number => score[b]! - score[a]! || tie[b]! - tie[a]!;
  return {
    size: candidates.length,
    head(count) {
      while (sorted.length < count && restLength > 0) {
        const want = 2 * Math.max(count - sorted.length, MIN_BATCH);
        if (want >= restLength) {
          for (const i of Array.from(rest.subarray(0, restLength)).sort(better)) sorted.push(i);
          restLength = 0;
          break;
        }
        const threshold = kthLargest(rest.subarray(0, restLength), score, want);
        const batch: number[] = [];
        let kept = 0;
        for (let j = 0; j < restLength; j++) {
          const i = rest[j]!;
          if (score[i]! >= threshold) batch.push(i);
          else rest[kept++] = i;
        }
        restLength = kept;
        for (const i of batch.sort(better)) sorted.push(i);
      }
      return count >= sorted.length ? sorted : sorted.slice(0, count);
    },
  };
}

/** The k-th largest score (1-based) among `indices`, by quickselect on a copy. */
export function kthLargest(indices: Int32Array, score: ArrayLike<number>, k: number): number {
  const values = new Float64Array(indices.length);
  for (let j = 0; j < indices.length; j++) values[j] = score[indices[j]!]!;
  // Looking for position k-1 in descending order is position n-k in ascending order.
  const target = values.length - k;
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = median3(values[lo]!, values[(lo + hi) >> 1]!, values[hi]!);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}

function median3(a: number, b: number, c: number): number {
  return a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
}
