export interface DiffStat {
  path: string;
  added: number;
  removed: number;
}

/**
 * Parse `git diff --numstat -z` output. Renames come as an empty path field followed by old and new path;
 * binary files count as 0/0.
 */
export function parseNumstat(out: string): DiffStat[] {
  const stats: DiffStat[] = [];
  const parts = out.split("\0");
  for (let i = 0; i < parts.length; i++) {
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(parts[i]!.replace(/^\n/, ""));
    if (!m) continue;
    let p = m[3]!;
    if (p === "") {
      p = parts[i + 2] ?? "";
      i += 2;
    }
    stats.push({ path: p, added: m[1] === "-" ? 0 : Number(m[1]), removed: m[2] === "-" ? 0 : Number(m[2]) });
  }
  return stats;
}

/**
 * What `git diff --numstat` would say of a diff text made of `diff --git` sections without renames (lines before the
 * first section, such as "Added <file>" notes, are skipped): per file the `+` and `-` lines of its hunks, a binary
 * file 0/0; in git's path order (byte order, which is tree order for full paths). Null when a section's header
 * does not name its path plainly (`a/<p> b/<p>`, unquoted): the caller then asks git.
 */
export function numstatOfDiff(diff: string): DiffStat[] | null {
  const stats: DiffStat[] = [];
  for (const section of diff.split(/^(?=diff --git )/m)) {
    if (!section.startsWith("diff --git ")) continue;
    const path = sectionPath(section);
    if (path === null) return null;
    let added = 0;
    let removed = 0;
    let inHunks = false;
    for (const line of section.split("\n")) {
      if (!inHunks) {
        inHunks = line.startsWith("@@");
        continue;
      }
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
    stats.push({ path, added, removed });
  }
  return stats.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** The path of a `diff --git a/<p> b/<p>` section whose header names it unquoted, both halves alike; else null. */
export function sectionPath(section: string): string | null {
  const eol = section.indexOf("\n");
  const header = section.slice("diff --git ".length, eol < 0 ? undefined : eol);
  if (!header.startsWith("a/")) return null;
  // "a/<p> b/<p>": both halves are the same path, so the header's length fixes where it splits.
  const len = (header.length - 5) / 2;
  if (!Number.isInteger(len) || len <= 0) return null;
  const a = header.slice(2, 2 + len);
  return header === `a/${a} b/${a}` ? a : null;
}
