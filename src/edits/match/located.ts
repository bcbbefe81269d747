import type { MatchRung } from "../types.js";

/**
 * Where (and how) a SEARCH fits a file: the one region of lines to replace (`length` lines from `start`, by
 * `replacement`), or why it does not fit. A region, not the whole edited file, so the caller can splice it into the
 * original text without rebuilding every line.
 */
export type Located =
  | { kind: "unique"; rung: MatchRung; start: number; length: number; replacement: string[] }
  | { kind: "ambiguous"; rung: MatchRung; lines: number[] }
  | { kind: "none" };

/** Replace `length` lines at `start` with `replacement`. */
export function splice(start: number, length: number, replacement: readonly string[], rung: MatchRung): Located {
  return { kind: "unique", start, length, rung, replacement: [...replacement] };
}

/** An ambiguous result with the 1-based line numbers of the places found. */
export function ambiguous(rung: MatchRung, starts: readonly number[]): Located {
  return { kind: "ambiguous", rung, lines: starts.map((s) => s + 1) };
}
