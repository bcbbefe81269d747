import { findWindows } from "./find-windows.js";
import { ambiguous, type Located } from "./located.js";

const exact = (l: string) => l;
const trailing = (l: string) => l.trimEnd();
const isElision = (line: string): boolean => line.trim() === "...";

/** Split lines on `...` lines: n separators give n + 1 pieces. */
function pieces(lines: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const l of lines) {
    if (isElision(l)) out.push([]);
    else out[out.length - 1]!.push(l);
  }
  return out;
}

/**
 * `...` lines in SEARCH and REPLACE stand for unchanged code (AIDER.md §2.1.2 step 4): the pieces between them are
 * replaced pairwise. Stricter than Aider where Aider could pick a wrong place (AIDER.md A.9): pieces match whole
 * lines (Aider matches substrings, so `foo()` could hit inside `bar.foo()`), each exactly once, in order; a piece that
 * is empty in SEARCH but not in REPLACE is refused (Aider appends it to the end of the file).
 */
export function locateElision(file: readonly string[], search: readonly string[], replace: readonly string[]): Located {
  if (!search.some(isElision)) return { kind: "none" };
  const sp = pieces(search);
  const rp = pieces(replace);
  if (sp.length !== rp.length) return { kind: "none" };
  let lines = [...file];
  let from = 0;
  let firstStart = -1;
  for (let k = 0; k < sp.length; k++) {
    const s = sp[k]!;
    const r = rp[k]!;
    if (s.length === 0 && r.length === 0) continue;
    if (s.length === 0) return { kind: "none" };
    let hits = findWindows(lines, s, exact, 2);
    if (hits.length === 0) hits = findWindows(lines, s, trailing, 2);
    if (hits.length > 1) return ambiguous("elision", hits);
    const start = hits[0];
    if (start === undefined || start < from) return { kind: "none" };
    lines = [...lines.slice(0, start), ...r, ...lines.slice(start + s.length)];
    from = start + r.length;
    if (firstStart < 0) firstStart = start;
  }
  if (firstStart < 0) return { kind: "none" };
  return { kind: "unique", lines, rung: "elision", start: firstStart };
}
