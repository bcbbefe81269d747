const ELISION = /^[ \t]*\.\.\.[ \t]*\n/m;
const ELISION_ALL = /^[ \t]*\.\.\.[ \t]*\n/gm;

/**
 * `...` lines in SEARCH and REPLACE stand for unchanged code (AIDER.md §2.1.2 step 4): the pieces between them are
 * replaced pairwise, each piece of SEARCH required to occur exactly once. Returns null when there is no elision or
 * it cannot be applied safely (unpaired `...`, a piece missing or occurring several times).
 */
export function applyElision(content: string, search: string, replace: string): string | null {
  if (!ELISION.test(search)) return null;
  const sPieces = search.split(ELISION_ALL);
  const rPieces = replace.split(ELISION_ALL);
  if (sPieces.length !== rPieces.length) return null;
  let out = content;
  for (let k = 0; k < sPieces.length; k++) {
    const s = sPieces[k]!;
    const r = rPieces[k]!;
    if (!s && !r) continue;
    if (!s) {
      out = (out === "" || out.endsWith("\n") ? out : `${out}\n`) + r;
      continue;
    }
    const first = out.indexOf(s);
    if (first < 0 || out.indexOf(s, first + 1) >= 0) return null;
    out = out.slice(0, first) + r + out.slice(first + s.length);
  }
  return out;
}
