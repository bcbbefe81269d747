/**
 * A port of Python's `difflib.SequenceMatcher` (Ratcliff/Obershelp) restricted to what the edit engine needs:
 * `ratio`, `quick_ratio`, `real_quick_ratio` and `get_close_matches`, with `isjunk=None` and difflib's default
 * `autojunk` (elements of a second sequence of 200+ items that occur more than 1% + 1 times are "popular" and not
 * used to seed matches). Same numbers as Python, so "did you mean" suggestions agree with Aider's (docs/behaviour.md#where-we-differ-from-aider).
 * A sequence is a string (characters) or an array of strings (lines).
 *
 * Its loops index the sequences (a string's elements are UTF-16 units, as difflib's are here; `for…of` would walk code
 * points): each `!` reads a position its loop bounds, or pops a queue the loop checked is not empty.
 */
export type Sequence = string | readonly string[];

export interface MatchingBlock {
  a: number;
  b: number;
  size: number;
}

/** Index of `b`: element → ascending positions, without popular elements (autojunk). */
function indexB(b: Sequence, autojunk: boolean): Map<string, number[]> {
  const b2j = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const elt = b[j]!;
    const list = b2j.get(elt);
    if (list) list.push(j);
    else b2j.set(elt, [j]);
  }
  if (autojunk && b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (const [elt, idxs] of b2j) if (idxs.length > ntest) b2j.delete(elt);
  }
  return b2j;
}

function longestMatch(
  a: Sequence,
  b: Sequence,
  b2j: Map<string, number[]>,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number,
): MatchingBlock {
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  let j2len = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]!) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    j2len = next;
  }
  // Popular elements were left out of the index; difflib extends the best match over equal neighbours anyway.
  while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
  return { a: besti, b: bestj, size: bestsize };
}

/** The matching blocks of `a` and `b`, in order, as difflib's `get_matching_blocks` (without the final sentinel). */
export function matchingBlocks(a: Sequence, b: Sequence, autojunk = true): MatchingBlock[] {
  const b2j = indexB(b, autojunk);
  const blocks: MatchingBlock[] = [];
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const m = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (m.size === 0) continue;
    blocks.push(m);
    if (alo < m.a && blo < m.b) queue.push([alo, m.a, blo, m.b]);
    if (m.a + m.size < ahi && m.b + m.size < bhi) queue.push([m.a + m.size, ahi, m.b + m.size, bhi]);
  }
  return blocks.sort((x, y) => x.a - y.a || x.b - y.b);
}

/**
 * `SequenceMatcher(None, a, b).ratio()`: 2·M / (|a| + |b|), 1 for two empty sequences.
 * `sequenceRatio(["a", "b"], ["a", "c"]) === 0.5`
 */
export function sequenceRatio(a: Sequence, b: Sequence, autojunk = true): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  const matches = matchingBlocks(a, b, autojunk).reduce((sum, m) => sum + m.size, 0);
  return (2 * matches) / total;
}

/** `quick_ratio()`: an upper bound of `sequenceRatio` from the multiset intersection. */
export function quickRatio(a: Sequence, b: Sequence): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  const avail = new Map<string, number>();
  for (let j = 0; j < b.length; j++) avail.set(b[j]!, (avail.get(b[j]!) ?? 0) + 1);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const n = avail.get(a[i]!) ?? 0;
    if (n > 0) {
      matches++;
      avail.set(a[i]!, n - 1);
    }
  }
  return (2 * matches) / total;
}

/** `real_quick_ratio()`: the cheapest upper bound, from the lengths alone. */
export function realQuickRatio(a: Sequence, b: Sequence): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * Math.min(a.length, b.length)) / total;
}

/**
 * `difflib.get_close_matches(word, possibilities, n, cutoff)`: the best `n` possibilities scoring at least
 * `cutoff`, best first (ties: the larger string first, as Python's tuple ordering does).
 * `getCloseMatches("appel", ["ape", "apple", "peach"]) → ["apple", "ape"]`
 */
export function getCloseMatches(word: string, possibilities: readonly string[], n = 3, cutoff = 0.6): string[] {
  if (n <= 0) throw new Error(`n must be > 0, got ${n}`);
  if (cutoff < 0 || cutoff > 1) throw new Error(`cutoff must be in [0, 1], got ${cutoff}`);
  const scored: { score: number; x: string }[] = [];
  for (const x of possibilities) {
    if (realQuickRatio(x, word) >= cutoff && quickRatio(x, word) >= cutoff) {
      const score = sequenceRatio(x, word);
      if (score >= cutoff) scored.push({ score, x });
    }
  }
  scored.sort((p, q) => q.score - p.score || (q.x > p.x ? 1 : q.x < p.x ? -1 : 0));
  return scored.slice(0, n).map((s) => s.x);
}
