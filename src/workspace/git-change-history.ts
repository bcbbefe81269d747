import type { GitRun } from "./git-runner.js";

/** Commits read for co-change: enough to see which files go together, bounded so the read stays quick. */
export const CHANGE_HISTORY_COMMITS = 300;

/**
 * The newest `n` non-merge commits reachable from HEAD, each as the paths it changed (renames as delete + add), for
 * the map's co-change signal. A depth-1 clone has one commit, listing every file (the map ignores such commits); a
 * repository without commits, or any git failure, gives [] — history is an aid, never a reason to fail a run.
 */
export async function changeHistory(run: GitRun, dir: string, n = CHANGE_HISTORY_COMMITS): Promise<string[][]> {
  const r = await run(dir, ["log", "--no-merges", "--no-renames", "--name-only", "--format=%x1e", `-${Math.max(1, Math.floor(n))}`, "HEAD", "--"], { allowFail: true });
  return r.ok ? parseChangeHistory(r.stdout) : [];
}

/** `git log --name-only --format=%x1e` output → each commit's paths. Example: "\x1e\n\na.ts\nb.ts\n" → [["a.ts", "b.ts"]]. */
export function parseChangeHistory(out: string): string[][] {
  return out
    .split("\x1e")
    .map((record) => record.split("\n").filter((line) => line.length > 0))
    .filter((paths) => paths.length > 0);
}
