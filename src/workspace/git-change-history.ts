import type { GitRun } from "./git-runner.js";

/** Commits read for co-change: enough to see which files go together, bounded so the read stays quick. */
export const CHANGE_HISTORY_COMMITS = 300;

/** The `git log` arguments for {@link parseChangeHistory}: the newest `n` non-merge commits from `rev`. */
export function changeHistoryArgs(n = CHANGE_HISTORY_COMMITS, rev = "HEAD"): string[] {
  return [
    "log",
    "--no-merges",
    "--no-renames",
    "--name-only",
    "--format=%x1e%P",
    `-${Math.max(1, Math.floor(n))}`,
    rev,
    "--",
  ];
}

/**
 * The newest `n` non-merge commits reachable from HEAD, each as the paths it changed (renames as delete + add), for
 * the map's co-change signal. Commits without a parent are left out: a root commit, or the boundary of a shallow
 * clone, lists the whole tree, not a change — so a depth-1 clone gives []. So does a repository without commits, or
 * any git failure: history is an aid, never a reason to fail a run.
 */
export async function changeHistory(run: GitRun, dir: string, n = CHANGE_HISTORY_COMMITS): Promise<string[][]> {
  const r = await run(dir, changeHistoryArgs(n), { allowFail: true });
  return r.ok ? parseChangeHistory(r.stdout) : [];
}

/**
 * `git log` output of {@link changeHistoryArgs} → the paths of each commit that has a parent.
 * Example: "\x1e1234abcd\n\na.ts\nb.ts\n\x1e\n\nall.ts\n" → [["a.ts", "b.ts"]].
 */
export function parseChangeHistory(out: string): string[][] {
  const commits: string[][] = [];
  for (const record of out.split("\x1e")) {
    const [parents = "", ...lines] = record.split("\n");
    const paths = lines.filter((line) => line.length > 0);
    if (parents.trim() && paths.length > 0) commits.push(paths);
  }
  return commits;
}
