import { normalizeEditPath } from "../path-policy.js";

export const DEV_NULL = "/dev/null";

/** The path text of a `---`/`+++` line: no tab-separated or trailing timestamp, no quotes. */
export function rawHeaderPath(line: string): string {
  let p = line.slice(4).replace(/\t.*$/, "").trim();
  p = p.replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?( ?[+-]\d{4}|Z)?$/, "");
  if (/^".*"$/.test(p)) p = p.slice(1, -1);
  return p;
}

/**
 * The file a `--- from` / `+++ to` header pair names. `a/` and `b/` are stripped for EVERY file in the answer
 * (Aider keeps `b/` on the second and later files, docs/behaviour.md#aider-bugs-we-avoid (#10)) when git's prefixes are evident (the other side
 * carries its prefix or is /dev/null) or the stripped path is a known file; a path that only exists with the
 * prefix (a real folder named `b/`) keeps it.
 * `headerPaths("a/x.py", "b/x.py", () => false) → { from: "x.py", to: "x.py" }`
 */
export function headerPaths(from: string, to: string, known: (path: string) => boolean): { from: string; to: string } {
  const strip = (p: string, prefix: string, other: string, otherPrefix: string) => {
    if (!p.startsWith(prefix)) return normalizeEditPath(p);
    const plain = normalizeEditPath(p);
    const stripped = normalizeEditPath(p.slice(prefix.length));
    if (known(plain) && !known(stripped)) return plain;
    // No other side at all (`+++` alone) counts as git style too.
    const evident = other === "" || other === DEV_NULL || other.startsWith(otherPrefix);
    return evident || known(stripped) ? stripped : plain;
  };
  return {
    from: from === DEV_NULL ? DEV_NULL : strip(from, "a/", to, "b/"),
    to: to === DEV_NULL ? DEV_NULL : strip(to, "b/", from, "a/"),
  };
}
