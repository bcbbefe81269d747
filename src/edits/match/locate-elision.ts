import { findKeyedWindows, findWindows } from "./find-windows.js";
import { ambiguous, type Located } from "./located.js";

const trailing = (l: string) => l.trimEnd();
const isElision = (line: string): boolean => line.trim() === "...";

/** Split lines on `...` lines: n separators give n + 1 pieces. */
function pieces(lines: readonly string[]): string[][] {
  let piece: string[] = [];
  const out: string[][] = [piece];
  for (const l of lines) {
    if (isElision(l)) out.push((piece = []));
    else piece.push(l);
  }
  return out;
}

/**
 * `...` lines in SEARCH and REPLACE stand for unchanged code (docs/behaviour.md#rungs): the pieces between them are
 * replaced pairwise. Stricter than Aider where Aider could pick a wrong place (docs/behaviour.md#extra-tolerant-rungs): pieces match whole
 * lines (Aider matches substrings, so `foo()` could hit inside `bar.foo()`), each exactly once, in order; a piece that
 * is empty in SEARCH but not in REPLACE is refused (Aider appends it to the end of the file).
 */
export function locateElision(file: readonly string[], search: readonly string[], replace: readonly string[]): Located {
  if (!search.some(isElision)) return { kind: "none" };
  const sp = pieces(search);
  const rp = pieces(replace);
  if (sp.length !== rp.length) return { kind: "none" };
  // Each piece is looked for in the file as earlier pieces left it; one copy, edited in place.
  let lines: string[] | null = null;
  let from = 0;
  let firstStart = -1;
  for (const [k, s] of sp.entries()) {
    const r = rp[k]!; // as many replace pieces as search pieces (checked above)
    if (s.length === 0 && r.length === 0) continue;
    if (s.length === 0) return { kind: "none" };
    const now: readonly string[] = lines ?? file;
    let hits = findKeyedWindows(now, s, 2);
    if (hits.length === 0) hits = findWindows(now, s, trailing, 2);
    if (hits.length > 1) return ambiguous("elision", hits);
    const start = hits[0];
    if (start === undefined || start < from) return { kind: "none" };
    lines ??= [...file];
    lines.splice(start, s.length, ...r);
    from = start + r.length;
    if (firstStart < 0) firstStart = start;
  }
  if (firstStart < 0 || lines === null) return { kind: "none" };
  // Every piece lands after the one before, so the edit is one region: from the first piece to the end of the
  // last, whose end in the original file is `from` less the lines the replacements added.
  const end = from - (lines.length - file.length);
  return {
    kind: "unique",
    rung: "elision",
    start: firstStart,
    length: end - firstStart,
    replacement: lines.slice(firstStart, from),
  };
}
