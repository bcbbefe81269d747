import { sequenceRatio } from "./sequence-ratio.js";

const MAX_CANDIDATES = 400;

/**
 * "Did you mean": the window of the file most similar to the SEARCH lines (line-level ratio ≥ 0.6), widened by
 * 5 lines each side unless its first and last lines already equal SEARCH's. Only windows that share at least one
 * line with SEARCH are scored, so a miss on a 20,000-line file stays cheap. Returns "" when nothing is close.
 */
export function similarLines(search: readonly string[], file: readonly string[], threshold = 0.6): string {
  if (search.length === 0 || file.length === 0) return "";
  const wanted = new Set(search.map((l) => l.trim()).filter(Boolean));
  const starts = new Set<number>();
  for (let i = 0; i < file.length && starts.size < MAX_CANDIDATES; i++) {
    const t = file[i]!.trim();
    if (!t || !wanted.has(t)) continue;
    for (let k = 0; k < search.length; k++) {
      if (search[k]!.trim() === t) starts.add(Math.max(0, Math.min(i - k, file.length - search.length)));
    }
  }
  let best = -1;
  let bestRatio = 0;
  for (const start of [...starts].sort((x, y) => x - y)) {
    const ratio = sequenceRatio(search, file.slice(start, start + search.length));
    if (ratio > bestRatio) {
      bestRatio = ratio;
      best = start;
    }
  }
  if (best < 0 || bestRatio < threshold) return "";
  const end = Math.min(file.length, best + search.length);
  const chunk = file.slice(best, end);
  if (chunk[0] === search[0] && chunk[chunk.length - 1] === search[search.length - 1]) return chunk.join("\n");
  return file.slice(Math.max(0, best - 5), Math.min(file.length, end + 5)).join("\n");
}
