import type { MatchRung } from "../types.js";
import { locate, type LocateOptions } from "../match/locate.js";
import { joinLines, splitLines } from "../match/split-lines.js";

export type ReplaceResult =
  { kind: "ok"; content: string; rung: MatchRung } | { kind: "ambiguous"; lines: number[] } | { kind: "none" };

/** As many exact places as the ladder lists in an "ambiguous" failure (see `locate`). */
const HIT_LIMIT = 10;

/**
 * Replace the one place `search` stands in `content` (LF text) with `replace`, walking the matching ladder
 * (see `locate`). `search` must contain a non-blank line. The result always ends with a newline unless empty;
 * `applyEdits` restores the file's own final-newline state.
 * The exact rung runs on the text itself (whole lines found with `indexOf`), and every rung's result is spliced
 * into the original text by offsets: a 20,000-line file is not split into lines and joined again unless a looser
 * rung needs its lines. The result is the same as joining the edited lines.
 * `replaceInText("a\nb\n", "b\n", "c\n") → { kind: "ok", content: "a\nc\n", rung: "exact" }`
 */
export function replaceInText(
  content: string,
  search: string,
  replace: string,
  options: LocateOptions = {},
): ReplaceResult {
  const text = content === "" || content.endsWith("\n") ? content : `${content}\n`;
  const searchLines = splitLines(search);
  const replaceLines = splitLines(replace);
  const needle = joinLines(searchLines);
  const hits = lineStartHits(text, needle, HIT_LIMIT);
  const [at, ...more] = hits;
  if (at !== undefined && more.length === 0) {
    return {
      kind: "ok",
      content: text.slice(0, at) + joinLines(replaceLines) + text.slice(at + needle.length),
      rung: "exact",
    };
  }
  if (hits.length > 1) return { kind: "ambiguous", lines: lineNumbers(text, hits) };
  const found = locate(splitLines(content), searchLines, replaceLines, { ...options, exactTried: true, text });
  if (found.kind === "ambiguous") return { kind: "ambiguous", lines: found.lines };
  if (found.kind === "none") return { kind: "none" };
  const [from, to] = lineOffsets(text, found.start, found.start + found.length);
  return { kind: "ok", content: text.slice(0, from) + joinLines(found.replacement) + text.slice(to), rung: found.rung };
}

/**
 * Offsets in `text` (LF, ending with a newline) where `needle` (whole lines, ending with a newline) stands at the
 * start of a line, overlapping places included, at most `limit`.
 */
function lineStartHits(text: string, needle: string, limit: number): number[] {
  const hits: number[] = [];
  for (let at = text.indexOf(needle); at >= 0 && hits.length < limit; at = text.indexOf(needle, at + 1)) {
    if (at === 0 || text.charCodeAt(at - 1) === 10) hits.push(at);
  }
  return hits;
}

/** 1-based line numbers of ascending offsets. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const at of offsets) {
    for (let nl = text.indexOf("\n", pos); nl >= 0 && nl < at; nl = text.indexOf("\n", nl + 1)) {
      line++;
      pos = nl + 1;
    }
    out.push(line);
  }
  return out;
}

/** The offsets where lines `a` and `b` (0-based, a ≤ b) start; `text.length` for the line after the last. */
function lineOffsets(text: string, a: number, b: number): [number, number] {
  let offset = 0;
  let from = 0;
  for (let line = 0; line < b; line++) {
    if (line === a) from = offset;
    offset = text.indexOf("\n", offset) + 1;
  }
  return [a === b ? offset : from, offset];
}
