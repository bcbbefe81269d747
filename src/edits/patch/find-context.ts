import { findWindows } from "../match/find-windows.js";
import { isBlank, leadingWhitespace } from "../match/split-lines.js";
import type { MatchRung } from "../types.js";
import { hunkSides, type HunkLine } from "../udiff/hunk-lines.js";
import { rebuildWindow, stripBlankEdges } from "../udiff/place-hunk.js";

export type ContextMatch =
  | { kind: "ok"; start: number; end: number; replacement: string[]; rung: MatchRung }
  | { kind: "ambiguous"; at: number[] }
  | { kind: "none" };

// V4A's own ladder (docs/behaviour.md#v4a-patches): exact, then trailing whitespace ignored, then all edge whitespace ignored.
const RUNGS: readonly { rung: MatchRung; key: (line: string) => string }[] = [
  { rung: "exact", key: (l) => l },
  { rung: "trailing-whitespace", key: (l) => l.trimEnd() },
  { rung: "indent", key: (l) => l.trim() },
];

/** The last line of the block an anchor line opens: up to the next line indented no deeper than the anchor. */
function scopeEnd(lines: readonly string[], anchorAt: number): number {
  const depth = leadingWhitespace(lines[anchorAt] ?? "").length;
  for (let j = anchorAt + 1; j < lines.length; j++) {
    if (!isBlank(lines[j]!) && leadingWhitespace(lines[j]!).length <= depth) return j;
  }
  return lines.length - 1;
}

/**
 * Find the ONE place at or after `from` where a chunk's context and removed lines stand, walking the rungs. Only a
 * unique place is used (Aider's V4A takes the first, docs/behaviour.md#ambiguous-matches-are-refused); when several match and an `@@` anchor was found
 * at `anchorAt`, the one inside the anchor's block wins. With `eof` the end of the file is tried first. Blank
 * context at the chunk's edges is dropped in a second try. Context lines keep the file's text; on the
 * whitespace-insensitive rung, added lines follow the file's indentation when the offset is uniform.
 */
export function findContext(
  lines: readonly string[],
  chunk: readonly HunkLine[],
  from: number,
  anchorAt: number | null,
  eof: boolean,
): ContextMatch {
  const variants = [chunk, stripBlankEdges(chunk)].filter((v, i) => i === 0 || v.length !== chunk.length);
  for (const { rung, key } of RUNGS) {
    for (const variant of variants) {
      const { before } = hunkSides(variant);
      if (before.length === 0) continue;
      const fit = (start: number) => {
        const replacement = rebuildWindow(lines.slice(start, start + before.length), variant, rung === "indent");
        return replacement ? { kind: "ok" as const, start, end: start + before.length, replacement, rung } : null;
      };
      const atEnd = lines.length - before.length;
      // atEnd + k < lines.length for every k < before.length, and atEnd ≥ from ≥ 0.
      if (eof && atEnd >= from && before.every((b, k) => key(lines[atEnd + k]!) === key(b))) {
        const found = fit(atEnd);
        if (found) return found;
      }
      const fits = findWindows(lines.slice(from), before, key)
        .map((s) => fit(s + from))
        .filter((f) => f !== null);
      if (fits.length === 1) return fits[0]!;
      if (fits.length > 1) {
        if (anchorAt !== null) {
          const last = scopeEnd(lines, anchorAt);
          const inScope = fits.filter((f) => f.start >= anchorAt && f.end - 1 <= last);
          if (inScope.length === 1) return inScope[0]!;
        }
        return { kind: "ambiguous", at: fits.map((f) => f.start + 1) };
      }
    }
  }
  return { kind: "none" };
}
