import { scoreWindows } from "../find-similar-lines.js";
import { type Located, splice } from "./located.js";
import { reindent } from "./reindent.js";

/** Minimum line-level similarity, and how far the best window must lead any other place (docs/behaviour.md#extra-tolerant-rungs). */
export const SIMILARITY_FLOOR = 0.9;
export const SIMILARITY_LEAD = 0.05;

const normalize = (l: string) => l.trim().replace(/\s+/g, " ");

/**
 * The opt-in similarity rung (off by default): the window whose whitespace-normalised lines are most similar to
 * SEARCH's, if its ratio is at least 0.9 and every other window — shifted ones included — scores at least 0.05 lower.
 * Aider's own fuzzy matcher is dead code (docs/behaviour.md#rungs); this one only edits when the place is clear.
 */
export function locateSimilar(file: readonly string[], search: readonly string[], replace: readonly string[]): Located {
  const { best, runnerUp } = scoreWindows(search.map(normalize), file.map(normalize), SIMILARITY_FLOOR, true);
  if (!best) return { kind: "none" };
  if (runnerUp && runnerUp.ratio > best.ratio - SIMILARITY_LEAD) {
    return { kind: "ambiguous", rung: "similarity", lines: [best.start + 1, runnerUp.start + 1].sort((a, b) => a - b) };
  }
  const window = file.slice(best.start, best.start + search.length);
  return splice(best.start, search.length, reindent(window, search, replace) ?? replace, "similarity");
}
