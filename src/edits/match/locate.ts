import type { MatchRung } from "../types.js";
import { findWindows } from "./find-windows.js";
import { isBlank, leadingWhitespace } from "./split-lines.js";

export type Located =
  | { kind: "unique"; start: number; end: number; rung: MatchRung; replacement: string[] }
  | { kind: "ambiguous"; rung: MatchRung; lines: number[] }
  | { kind: "none" };

const exactKey = (l: string) => l;
const trailingKey = (l: string) => l.trimEnd();
const trimKey = (l: string) => l.trim();
const innerKey = (l: string) => l.trim().replace(/\s+/g, " ");

/**
 * Find the one place `search` stands in `file` and compute its replacement, walking the ladder: exact →
 * trailing whitespace ignored → uniform indentation offset → without one leading blank line → whitespace
 * normalised inside lines. A rung that finds several places stops the walk as `ambiguous`: we never edit the first
 * of several matches (AIDER.md A.7), and a looser rung would only find more.
 */
export function locate(file: readonly string[], search: readonly string[], replace: readonly string[]): Located {
  const first = ladder(file, search, replace);
  if (first.kind !== "none") return first;
  // Models often start SEARCH with a blank line that is not in the file (Aider issue #25).
  if (search.length > 2 && isBlank(search[0]!)) {
    const retry = ladder(file, search.slice(1), replace);
    if (retry.kind === "unique") return { ...retry, rung: "leading-blank" };
    if (retry.kind === "ambiguous") return retry;
  }
  return { kind: "none" };
}

function ladder(file: readonly string[], search: readonly string[], replace: readonly string[]): Located {
  const simple: [MatchRung, (l: string) => string][] = [
    ["exact", exactKey],
    ["trailing-whitespace", trailingKey],
  ];
  for (const [rung, key] of simple) {
    const hits = findWindows(file, search, key);
    if (hits.length === 1) return { kind: "unique", start: hits[0]!, end: hits[0]! + search.length, rung, replacement: [...replace] };
    if (hits.length > 1) return ambiguous(rung, hits);
  }
  const indentHits = findWindows(file, search, trimKey)
    .map((start) => ({ start, replacement: reindent(file.slice(start, start + search.length), search, replace) }))
    .filter((h): h is { start: number; replacement: string[] } => h.replacement !== null);
  if (indentHits.length === 1) {
    const h = indentHits[0]!;
    return { kind: "unique", start: h.start, end: h.start + search.length, rung: "indent", replacement: h.replacement };
  }
  if (indentHits.length > 1) return ambiguous("indent", indentHits.map((h) => h.start));
  const inner = findWindows(file, search, innerKey);
  if (inner.length === 1) {
    const start = inner[0]!;
    const shifted = reindent(file.slice(start, start + search.length), search, replace);
    return { kind: "unique", start, end: start + search.length, rung: "inner-whitespace", replacement: shifted ?? [...replace] };
  }
  if (inner.length > 1) return ambiguous("inner-whitespace", inner);
  return { kind: "none" };
}

function ambiguous(rung: MatchRung, starts: number[]): Located {
  return { kind: "ambiguous", rung, lines: starts.map((s) => s + 1) };
}

/**
 * When the file's lines are the search lines shifted by one uniform indentation prefix, shift the replacement by
 * the same prefix. Returns null when the shift is not uniform or cannot be applied to every replacement line —
 * never guessing, so an over-indented SEARCH cannot corrupt text (AIDER.md A.6, Aider's `"  fobar"`).
 */
export function reindent(window: readonly string[], search: readonly string[], replace: readonly string[]): string[] | null {
  // One signed offset for every non-blank line: "+P" (file has P more) or "-P" (SEARCH has P more).
  let offset: string | null = null;
  for (let i = 0; i < search.length; i++) {
    const f = window[i]!;
    const s = search[i]!;
    if (isBlank(f) && isBlank(s)) continue;
    const fi = leadingWhitespace(f);
    const si = leadingWhitespace(s);
    let delta: string;
    if (fi.length >= si.length && fi.endsWith(si)) delta = `+${fi.slice(0, fi.length - si.length)}`;
    else if (si.endsWith(fi)) delta = `-${si.slice(0, si.length - fi.length)}`;
    else return null;
    if (offset !== null && offset !== delta) return null;
    offset = delta;
  }
  if (offset === null || offset === "+") return [...replace];
  const prefix = offset.slice(1);
  if (offset.startsWith("+")) return replace.map((r) => (isBlank(r) ? r : prefix + r));
  const out: string[] = [];
  for (const r of replace) {
    if (isBlank(r)) out.push(r);
    else if (r.startsWith(prefix)) out.push(r.slice(prefix.length));
    else return null;
  }
  return out;
}
