/**
 * Every start index where `needle` occurs as consecutive lines of `hay` under a line-equality key, in order
 * (see {@link findKeyedWindows}). Stops after `limit` hits: callers only need 0, 1 or "several" (and a few places
 * to name). `findWindows(["a", "b", "a", "b"], ["a", "b"], (l) => l) → [0, 2]`
 */
export function findWindows(
  hay: readonly string[],
  needle: readonly string[],
  key: (line: string) => string,
  limit = 10,
): number[] {
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
  let anchorKey: string | undefined;
  let fewest = Infinity;
  needleKeys.forEach((k, j) => {
    const c = counts.get(k) ?? 0;
    if (c < fewest) {
      fewest = c;
      anchor = j;
      anchorKey = k;
    }
  });
  if (fewest === 0 || anchorKey === undefined) return [];
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

/**
 * `findKeyedWindows(file.map(key), needleKeys, limit)` without keying every line of a large file, for keys that
 * return a part of the line (`trimEnd`, `trim`, identity): `text` is `file` with every line ending in "\n", the
 * needle key that occurs least often in it (as a substring) anchors the walk, and only the lines that hold it are
 * keyed. Same places, same order: every window holds its anchor line, whichever line that is.
 */
export function findKeyedWindowsInText(
  text: string,
  file: readonly string[],
  needleKeys: readonly string[],
  key: (line: string) => string,
  limit = 10,
): number[] {
  const n = needleKeys.length;
  if (n === 0 || n > file.length) return [];
  let anchor = -1;
  let anchorKey: string | undefined;
  let fewest = Infinity;
  const counted = new Map<string, number>();
  for (const [j, k] of needleKeys.entries()) {
    if (k === "" || counted.has(k)) continue;
    const c = countUpTo(text, k, fewest);
    counted.set(k, c);
    if (c < fewest) {
      fewest = c;
      anchor = j;
      anchorKey = k;
    }
  }
  // Only blank needle lines: a blank key is in every line, so there is nothing to search the text for.
  if (anchorKey === undefined) return findKeyedWindows(file.map(key), needleKeys, limit);
  if (fewest === 0) return [];
  const hits: number[] = [];
  let line = 0;
  let lineStart = 0;
  // `text` is `file` joined, each line ending in "\n": an offset found in it lies on a line of `file`, and the window
  // checked starts at 0 or later and ends within the file, so every `file[…]!` below reads a line that exists.
  for (let at = text.indexOf(anchorKey); at >= 0 && line < file.length; at = text.indexOf(anchorKey, lineStart)) {
    while (lineStart + file[line]!.length < at) lineStart += file[line++]!.length + 1;
    const start = line - anchor;
    if (start >= 0 && start + n <= file.length && key(file[line]!) === anchorKey) {
      let ok = true;
      for (let j = 0; j < n && ok; j++) ok = j === anchor || key(file[start + j]!) === needleKeys[j];
      if (ok) {
        hits.push(start);
        if (hits.length >= limit) break;
      }
    }
    lineStart += file[line++]!.length + 1;
  }
  return hits;
}

/** Occurrences of `needle` in `text`, counted up to `cap`. */
function countUpTo(text: string, needle: string, cap: number): number {
  let c = 0;
  for (let at = text.indexOf(needle); at >= 0 && c < cap; at = text.indexOf(needle, at + needle.length)) c++;
  return c;
}
