/**
 * Every start index where `needle` occurs as consecutive lines of `hay` under a line-equality key, in order
 * (see {@link findKeyedWindows}). Stops after `limit` hits: callers only need 0, 1 or "several" (and a few places
 * to name). `findWindows(["a", "b", "a", "b"], ["a", "b"], (l) => l) → [0, 2]`
 */
export function findWindows(hay: readonly string[], needle: readonly string[], key: (line: string) => string, limit = 10): number[] {
  if (needle.length === 0 || needle.length > hay.length) return [];
  return findKeyedWindows(hay.map(key), needle.map(key), limit);
}

/**
 * `findWindows` over lines already keyed (the ladder keys a file once per rung and reuses it). The walk is anchored
 * on the needle line that is rarest in `hay`, so a needle holding a line absent from the file costs one pass, and
 * common lines like `}` do not make every line a candidate.
 */
export function findKeyedWindows(hayKeys: readonly string[], needleKeys: readonly string[], limit = 10): number[] {
  if (needleKeys.length === 0 || needleKeys.length > hayKeys.length) return [];
  const counts = new Map<string, number>(needleKeys.map((k) => [k, 0]));
  for (const k of hayKeys) {
    const c = counts.get(k);
    if (c !== undefined) counts.set(k, c + 1);
  }
  let anchor = 0;
  let fewest = Infinity;
  needleKeys.forEach((k, j) => {
    const c = counts.get(k)!;
    if (c < fewest) {
      fewest = c;
      anchor = j;
    }
  });
  if (fewest === 0) return [];
  const anchorKey = needleKeys[anchor]!;
  const hits: number[] = [];
  for (let i = anchor; i <= hayKeys.length - needleKeys.length + anchor; i++) {
    if (hayKeys[i] !== anchorKey) continue;
    const start = i - anchor;
    let ok = true;
    for (let j = 0; j < needleKeys.length && ok; j++) ok = j === anchor || hayKeys[start + j] === needleKeys[j];
    if (ok) {
      hits.push(start);
      if (hits.length >= limit) break;
    }
  }
  return hits;
}
