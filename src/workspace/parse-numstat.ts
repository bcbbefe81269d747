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
