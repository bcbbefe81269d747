import type { MatchRung } from "../types.js";
import { locate } from "../match/locate.js";
import { joinLines, splitLines } from "../match/split-lines.js";
import { applyElision } from "./apply-elision.js";

export type ReplaceResult =
  | { kind: "ok"; content: string; rung: MatchRung }
  | { kind: "ambiguous"; lines: number[] }
  | { kind: "none" };

/**
 * Replace the one place `search` stands in `content` (LF text) with `replace`, walking the matching ladder,
 * then `...` elision. `search` must be non-empty.
 */
export function replaceInText(content: string, search: string, replace: string): ReplaceResult {
  const file = splitLines(content);
  const found = locate(file, splitLines(search), splitLines(replace));
  if (found.kind === "unique") {
    const out = [...file.slice(0, found.start), ...found.replacement, ...file.slice(found.end)];
    return { kind: "ok", content: joinLines(out), rung: found.rung };
  }
  if (found.kind === "ambiguous") return { kind: "ambiguous", lines: found.lines };
  const elided = applyElision(content, search, replace);
  if (elided !== null) return { kind: "ok", content: elided, rung: "elision" };
  return { kind: "none" };
}
