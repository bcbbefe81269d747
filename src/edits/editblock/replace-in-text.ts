import type { MatchRung } from "../types.js";
import { locate, type LocateOptions } from "../match/locate.js";
import { joinLines, splitLines } from "../match/split-lines.js";

export type ReplaceResult =
  | { kind: "ok"; content: string; rung: MatchRung }
  | { kind: "ambiguous"; lines: number[] }
  | { kind: "none" };

/**
 * Replace the one place `search` stands in `content` (LF text) with `replace`, walking the matching ladder
 * (see `locate`). `search` must contain a non-blank line. The result always ends with a newline unless empty;
 * `applyEdits` restores the file's own final-newline state.
 * `replaceInText("a\nb\n", "b\n", "c\n") → { kind: "ok", content: "a\nc\n", rung: "exact" }`
 */
export function replaceInText(content: string, search: string, replace: string, options: LocateOptions = {}): ReplaceResult {
  const found = locate(splitLines(content), splitLines(search), splitLines(replace), options);
  if (found.kind === "unique") return { kind: "ok", content: joinLines(found.lines), rung: found.rung };
  if (found.kind === "ambiguous") return { kind: "ambiguous", lines: found.lines };
  return { kind: "none" };
}
