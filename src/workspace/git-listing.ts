import type { Exec } from "../exec/types.js";

/** One `git ls-files` pass over a checkout: what the coder and the repo map need from the index at once. */
export interface GitListing {
  /** Tracked + untracked-not-ignored files, repo-relative, sorted, each once. */
  files: string[];
  /** The index's blob id of every tracked regular file at stage 0 (see `cleanBlobIds`). */
  indexIds: Map<string, string>;
  /** Tracked files whose work-tree content differs from the index (edited or deleted), as `git ls-files -m` says. */
  modified: Set<string>;
  /** Every path in the index (any mode or stage, deleted from the work tree or not). */
  tracked: Set<string>;
  /** Tracked regular files whose mode is executable (100755) at stage 0: a commit of them keeps that mode. */
  executables: Set<string>;
}

/**
 * The file list, the index's blob ids and the modified files in ONE process: `ls-files -t -s --cached --modified
 * --others` tags each entry, so a tracked entry (`H`, `S`, `M`, or `C` for modified, + mode, id, stage) cannot be
 * confused with an untracked file (`?` + path) whatever the file is named. The work-tree check runs on one thread
 * (by default git stats on many, for little gain on a fresh clone and at the cost of the machine's other jobs); on
 * a fresh 3,000-file clone it adds a few tens of milliseconds to the listing. Null when git fails (not a checkout).
 */
export async function listGitFiles(exec: Exec, root: string): Promise<GitListing | null> {
  const r = await exec.run({
    command: "git",
    args: [
      "-c",
      "core.preloadIndex=false",
      "ls-files",
      "-z",
      "-t",
      "-s",
      "--cached",
      "--modified",
      "--others",
      "--exclude-standard",
    ],
    cwd: root,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    maxOutputBytes: 400_000_000,
  });
  return r.exitCode === 0 ? parseTaggedListing(r.stdout) : null;
}

/** Pure part of {@link listGitFiles}: parse `git ls-files -z -t -s --cached --modified --others` output. */
export function parseTaggedListing(out: string): GitListing {
  const files = new Set<string>();
  const indexIds = new Map<string, string>();
  const modified = new Set<string>();
  const tracked = new Set<string>();
  const executables = new Set<string>();
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
    tracked.add(rel);
    if (mode === "100755" && stage === "0") executables.add(rel);
    if (entry[0] === "C") {
      modified.add(rel);
      continue;
    }
    if ((mode === "100644" || mode === "100755") && stage === "0" && id) indexIds.set(rel, id);
  }
  return { files: [...files].sort(), indexIds, modified, tracked, executables };
}
