import { isBlank, leadingWhitespace } from "./split-lines.js";

/**
 * When the file's lines are the SEARCH lines shifted by one uniform indentation prefix, shift REPLACE by the same
 * prefix. Returns null when the shift is not uniform or cannot be applied to every REPLACE line — never guessing,
 * so an over-indented SEARCH cannot corrupt text (docs/behaviour.md#indentation-never-corrupts: Aider turns `"  foo"` into `"  fobar"`).
 * `reindent(["    a"], ["a"], ["b"]) → ["    b"]`
 */
export function reindent(
  window: readonly string[],
  search: readonly string[],
  replace: readonly string[],
): string[] | null {
  // One signed offset for every non-blank line: "+P" (the file has P more) or "-P" (SEARCH has P more).
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
  if (offset === null || offset === "+" || offset === "-") return [...replace];
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
