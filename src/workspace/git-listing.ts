import type { Exec } from "../exec/types.js";

/** One `git ls-files` pass over a checkout: what the coder and the repo map need from the index at once. */
export interface GitListing {
  /** Tracked + untracked-not-ignored files, repo-relative, sorted, each once. */
  files: string[];
  /** The index's blob id of every tracked regular file at stage 0 (see `cleanBlobIds`). */
  indexIds: Map<string, string>;
}

/**
 * The file list and the index's blob ids in ONE process: `ls-files -t -s --cached --others` tags each entry, so a
 * tracked entry (`H`, `S`, `M` + mode, id, stage) cannot be confused with an untracked file (`?` + path) whatever
 * the file is named. Null when git fails (not a checkout).
 */
export async function listGitFiles(exec: Exec, root: string): Promise<GitListing | null> {
  const r = await exec.run({
    command: "git",
    args: ["-c", "core.quotePath=false", "ls-files", "-z", "-t", "-s", "--cached", "--others", "--exclude-standard"],
    cwd: root,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    maxOutputBytes: 400_000_000,
  });
  return r.exitCode === 0 ? parseTaggedListing(r.stdout) : null;
}

/** Pure part of {@link listGitFiles}: parse `git ls-files -z -t -s --cached --others` output. */
export function parseTaggedListing(out: string): GitListing {
  const files = new Set<string>();
  const indexIds = new Map<string, string>();
  for (const entry of out.split("\0")) {
    if (entry.length < 3 || entry[1] !== " ") continue;
    const rest = entry.slice(2);
    if (entry[0] === "?") {
      files.add(rest);
      continue;
    }
    // "<tag> <mode> <id> <stage>\t<path>"
    const tab = rest.indexOf("\t");
    if (tab < 0) continue;
    const [mode, id, stage] = rest.slice(0, tab).split(" ");
    const rel = rest.slice(tab + 1);
    files.add(rel);
    if ((mode === "100644" || mode === "100755") && stage === "0" && id) indexIds.set(rel, id);
  }
  return { files: [...files].sort(), indexIds };
}
