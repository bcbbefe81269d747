import { findWindows } from "../match/find-windows.js";
import { reindent } from "../match/reindent.js";
import { isBlank } from "../match/split-lines.js";
import type { MatchRung } from "../types.js";
import { hunkSides, type HunkLine } from "./hunk-lines.js";

export type Placed =
  { kind: "ok"; lines: string[]; rung: MatchRung } | { kind: "ambiguous"; at: number[] } | { kind: "none" };

const RUNGS: readonly { rung: MatchRung; key: (line: string) => string }[] = [
  { rung: "exact", key: (l) => l },
  { rung: "trailing-whitespace", key: (l) => l.trimEnd() },
  { rung: "relative-indent", key: (l) => l.trim() },
];

/** Drop blank context lines at both ends of a hunk (Aider's "strip" variant), which models add or leave out freely. */
export function stripBlankEdges(lines: readonly HunkLine[]): HunkLine[] {
  let start = 0;
  let end = lines.length;
  const blankContext = (line: HunkLine | undefined) => line?.op === " " && isBlank(line.text);
  while (start < end && blankContext(lines[start])) start++;
  while (end > start && blankContext(lines[end - 1])) end--;
  return lines.slice(start, end);
}

/**
 * Put a hunk in the ONE place of `file` its before-side matches, trying variants in Aider's order (plain, blank
 * edges stripped, indentation-insensitive) with trailing whitespace tolerated in between. The before-side is
 * replaced once: Aider's `str.replace` rewrote every copy (#3883), and a hunk that matches several places is
 * `ambiguous`, never applied to the first (docs/behaviour.md#ambiguous-matches-are-refused, docs/behaviour.md#unified-diff-fixes). Context lines keep the file's own text; added lines
 * follow the file's indentation when the match was indentation-insensitive and the offset is uniform.
 */
export function placeHunk(file: readonly string[], hunk: readonly HunkLine[]): Placed {
  const variants = [hunk, stripBlankEdges(hunk)].filter((v, i) => i === 0 || v.length !== hunk.length);
  for (const { rung, key } of RUNGS) {
    for (const lines of variants) {
      const { before } = hunkSides(lines);
      if (before.every(isBlank)) continue;
      const starts = findWindows(file, before, key);
      const fits = starts
        .map((start) => ({
          start,
          lines: rebuildWindow(file.slice(start, start + before.length), lines, rung === "relative-indent"),
        }))
        .filter((f): f is { start: number; lines: string[] } => f.lines !== null);
      const [fit, ...more] = fits;
      if (fit && more.length === 0) {
        const { start, lines: middle } = fit;
        return { kind: "ok", rung, lines: [...file.slice(0, start), ...middle, ...file.slice(start + before.length)] };
      }
      if (fits.length > 1) return { kind: "ambiguous", at: fits.map((f) => f.start + 1) };
    }
  }
  return { kind: "none" };
}

/**
 * The new text of a matched window: context lines keep the file's text (a looser rung must not rewrite them),
 * removed lines are dropped, added lines are inserted. With `shiftAdded`, added lines move by the window's uniform
 * indentation offset; null when that offset is not uniform (never guess an indentation).
 */
export function rebuildWindow(
  window: readonly string[],
  lines: readonly HunkLine[],
  shiftAdded: boolean,
): string[] | null {
  const { before } = hunkSides(lines);
  const added = lines.filter((l) => l.op === "+").map((l) => l.text);
  const shifted = shiftAdded ? reindent(window, before, added) : added;
  if (shifted === null) return null;
  const out: string[] = [];
  let w = 0;
  let a = 0;
  // One shifted line per `+` line, one window line per context or removed line: both reads are in bounds.
  for (const line of lines) {
    if (line.op === "+") out.push(shifted[a++]!);
    else if (line.op === " ") out.push(window[w++]!);
    else w++;
  }
  return out;
}
