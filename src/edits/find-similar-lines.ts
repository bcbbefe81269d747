import { sequenceRatio } from "./sequence-matcher.js";

/**
 * Bound on the work of full ratio computations (one costs roughly SEARCH's line count), so a pathological file
 * cannot make a miss slow: past it the best window found so far is kept.
 */
const MAX_RATIO_WORK = 100_000;

export interface ScoredWindow {
  start: number;
  ratio: number;
}

/**
 * Score every window of `search.length` lines of `file` by line-level `SequenceMatcher` ratio and return the best
 * (the first one on ties, as Aider keeps it) and, on request, the best other window (overlapping ones included: a
 * window shifted by one line that scores as well means the place's edges are unclear). A window's multiset
 * intersection with SEARCH bounds its ratio from above (difflib's `quick_ratio`) and is updated in O(1) per slide,
 * so the full ratio is only computed for windows that could beat the current best.
 */
export function scoreWindows(
  search: readonly string[],
  file: readonly string[],
  floor: number,
  wantRunnerUp = false,
): { best: ScoredWindow | null; runnerUp: ScoredWindow | null } {
  const n = search.length;
  if (n === 0 || file.length < n) return { best: null, runnerUp: null };
  const want = new Map<string, number>();
  for (const l of search) want.set(l, (want.get(l) ?? 0) + 1);
  const have = new Map<string, number>();
  let common = 0;
  const add = (l: string) => {
    const h = have.get(l) ?? 0;
    if (h < (want.get(l) ?? 0)) common++;
    have.set(l, h + 1);
  };
  const remove = (l: string) => {
    const h = (have.get(l) ?? 0) - 1;
    have.set(l, h);
    if (h < (want.get(l) ?? 0)) common--;
  };
  // Hot loop: the window [start, start + n) stays inside the file (n ≤ file.length, checked above).
  for (let i = 0; i < n; i++) add(file[i]!);
  const scored: ScoredWindow[] = [];
  let best: ScoredWindow | null = null;
  let budget = Math.max(20, Math.floor(MAX_RATIO_WORK / n));
  for (let start = 0; start + n <= file.length; start++) {
    if (start > 0) {
      remove(file[start - 1]!);
      add(file[start + n - 1]!);
    }
    const bound = common / n;
    // A window can only win when its upper bound beats the best so far (strictly: Aider keeps the first best).
    if (bound < floor || (!wantRunnerUp && best && bound <= best.ratio)) continue;
    if (budget-- <= 0) break;
    const ratio = sequenceRatio(search, file.slice(start, start + n));
    if (ratio < floor) continue;
    if (!best || ratio > best.ratio) best = { start, ratio };
    if (wantRunnerUp) scored.push({ start, ratio });
  }
  if (!best || !wantRunnerUp) return { best, runnerUp: null };
  const b = best;
  const runnerUp = scored
    .filter((w) => w.start !== b.start)
    .reduce<ScoredWindow | null>((r, w) => (!r || w.ratio > r.ratio ? w : r), null);
  return { best, runnerUp };
}

/**
 * "Did you mean" (Aider's `find_similar_lines`, docs/behaviour.md#failed-edits): the window of the file most similar to the
 * SEARCH lines (line-level ratio ≥ `threshold`), widened by 5 lines each side unless its first and last lines
 * already equal SEARCH's. Returns "" when nothing is close enough.
 * `findSimilarLines(["a", "x", "c"], ["a", "b", "c"]) → "a\nb\nc"`
 */
export function findSimilarLines(search: readonly string[], file: readonly string[], threshold = 0.6): string {
  const { best } = scoreWindows(search, file, threshold);
  if (!best) return "";
  const end = best.start + search.length;
  const chunk = file.slice(best.start, end);
  if (chunk[0] === search[0] && chunk[chunk.length - 1] === search[search.length - 1]) return chunk.join("\n");
  return file.slice(Math.max(0, best.start - 5), Math.min(file.length, end + 5)).join("\n");
}
