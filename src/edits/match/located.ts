import type { MatchRung } from "../types.js";

/** Where (and how) a SEARCH fits a file: the file's new lines, or why it does not fit. */
export type Located =
  | { kind: "unique"; lines: string[]; rung: MatchRung; start: number }
  | { kind: "ambiguous"; rung: MatchRung; lines: number[] }
  | { kind: "none" };

/** Replace `length` lines at `start` with `replacement`. */
export function splice(file: readonly string[], start: number, length: number, replacement: readonly string[], rung: MatchRung): Located {
  return { kind: "unique", start, rung, lines: [...file.slice(0, start), ...replacement, ...file.slice(start + length)] };
}

/** An ambiguous result with the 1-based line numbers of the places found. */
export function ambiguous(rung: MatchRung, starts: readonly number[]): Located {
  return { kind: "ambiguous", rung, lines: starts.map((s) => s + 1) };
}
