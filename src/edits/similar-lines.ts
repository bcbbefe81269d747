import { findSimilarLines } from "./find-similar-lines.js";

/**
 * "Did you mean" lines for a failed SEARCH / hunk / context (see {@link findSimilarLines}); kept under this name for
 * the udiff and patch appliers.
 */
export function similarLines(search: readonly string[], file: readonly string[], threshold = 0.6): string {
  return findSimilarLines(search, file, threshold);
}
