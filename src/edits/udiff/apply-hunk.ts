import type { HunkLine } from "./hunk-lines.js";
import { placeHunk, type Placed } from "./place-hunk.js";

/** A hunk as alternating runs: context, changes, context, changes, …, context (context runs may be empty). */
export function splitRuns(hunk: readonly HunkLine[]): { context: HunkLine[][]; changes: HunkLine[][] } {
  let contextRun: HunkLine[] = [];
  // The run of changes being read; null while context lines are.
  let changeRun: HunkLine[] | null = null;
  const context: HunkLine[][] = [contextRun];
  const changes: HunkLine[][] = [];
  for (const line of hunk) {
    if (line.op === " ") {
      if (changeRun) {
        contextRun = [];
        context.push(contextRun);
        changeRun = null;
      }
      contextRun.push(line);
    } else {
      if (!changeRun) {
        changeRun = [];
        changes.push(changeRun);
      }
      changeRun.push(line);
    }
  }
  if (changeRun) context.push([]);
  return { context, changes };
}

/**
 * Apply one hunk to a file's lines: first in one piece ({@link placeHunk}); when it matches nowhere, Aider's
 * "less context" retry (docs/behaviour.md#unified-diffs): each run of changes is placed on its own with progressively fewer of the
 * context lines around it, keeping the lines before the change longest, and still only where it matches one place.
 * Models often get a context line or two wrong while the changed lines are right. If any run finds no place, the
 * whole hunk fails and none of its runs is kept. An ambiguous first attempt is reported as is: less context
 * would only match more places.
 */
export function applyHunk(file: readonly string[], hunk: readonly HunkLine[]): Placed {
  const direct = placeHunk(file, hunk);
  if (direct.kind !== "none") return direct;
  const { context, changes } = splitRuns(hunk);
  let current = [...file];
  for (const [k, change] of changes.entries()) {
    // splitRuns gives one more context run than runs of changes: change k sits between context k and k + 1.
    const prec = context[k]!;
    const foll = context[k + 1]!;
    const placed = placeRun(current, prec, change, foll);
    if (placed === null) return { kind: "none" };
    current = placed;
  }
  return { kind: "ok", lines: current, rung: "less-context" };
}

function placeRun(
  file: readonly string[],
  prec: readonly HunkLine[],
  run: readonly HunkLine[],
  foll: readonly HunkLine[],
): string[] | null {
  for (let keep = prec.length + foll.length; keep >= 0; keep--) {
    for (let usePrec = Math.min(prec.length, keep); usePrec >= Math.max(0, keep - foll.length); usePrec--) {
      const window = [...prec.slice(prec.length - usePrec), ...run, ...foll.slice(0, keep - usePrec)];
      const placed = placeHunk(file, window);
      if (placed.kind === "ok") return placed.lines;
    }
  }
  return null;
}
