import type { Exec } from "../exec/types.js";
import type { GitListing } from "./git-listing.js";

/**
 * A checkout's first listing from its commit's tree (`git ls-tree -r`), for a checkout whose files git is still
 * writing: it needs no index and no work tree, so it runs beside `read-tree`. Once written, a fresh checkout lists the
 * same with `ls-files` (tracked = the tree's entries, no untracked or modified file), so the run's first listing can
 * come from here and save that process. Null when git fails.
 */
export async function listTree(exec: Exec, root: string, commit: string): Promise<GitListing | null> {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(commit)) return null;
  const r = await exec.run({
    command: "git",
    args: ["ls-tree", "-r", "-z", "--full-tree", commit],
    cwd: root,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    maxOutputBytes: 400_000_000,
  });
  return r.exitCode === 0 ? parseTreeListing(r.stdout) : null;
}

/**
 * Pure part of {@link listTree}: `ls-tree -r -z` entries (`<mode> <type> <id>\t<path>`) as the listing a fresh
 * checkout's `ls-files -t -s --cached --modified --others` gives (see `parseTaggedListing`): every entry is a
 * tracked file, regular files carry their blob id, nothing is modified.
 */
export function parseTreeListing(out: string): GitListing {
  const files = new Set<string>();
  const indexIds = new Map<string, string>();
  const executables = new Set<string>();
  for (const entry of out.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, , id] = entry.slice(0, tab).split(" ");
    const rel = entry.slice(tab + 1);
    if (!rel) continue;
    files.add(rel);
    if ((mode === "100644" || mode === "100755") && id) indexIds.set(rel, id);
    if (mode === "100755") executables.add(rel);
  }
  return { files: [...files].sort(), indexIds, modified: new Set(), tracked: new Set(files), executables };
}
