/**
 * Every start index where `needle` occurs as consecutive lines of `hay` under a line-equality key.
 * Lines are indexed by key (one pass), so a 20,000-line file costs one map build plus a check per candidate,
 * not a full sliding comparison. Stops after `limit` hits: callers only need to know 0, 1 or "several".
 */
export function findWindows(
  hay: readonly string[],
  needle: readonly string[],
  key: (line: string) => string,
  limit = 10,
): number[] {
  if (needle.length === 0 || needle.length > hay.length) return [];
  const needleKeys = needle.map(key);
  // Anchor on the rarest-looking needle line: the first non-empty key, else the first.
  let anchor = needleKeys.findIndex((k) => k !== "");
  if (anchor < 0) anchor = 0;
  const anchorKey = needleKeys[anchor]!;
  const hits: number[] = [];
  for (let i = anchor; i <= hay.length - needle.length + anchor; i++) {
    if (key(hay[i]!) !== anchorKey) continue;
    const start = i - anchor;
    let ok = true;
    for (let j = 0; j < needle.length; j++) {
      if (j === anchor) continue;
      if (key(hay[start + j]!) !== needleKeys[j]) {
        ok = false;
        break;
      }
    }
    if (ok) {
      hits.push(start);
      if (hits.length >= limit) break;
    }
  }
  return hits;
}
