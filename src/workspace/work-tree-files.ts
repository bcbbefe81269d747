import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { GitRun } from "./git-runner.js";

/**
 * Remove a checkout's files, keeping its `.git`: the run's commit and everything git needs to push it stay, and
 * {@link restoreWorkTree} writes the commit's files again should they be needed. Entries go in parallel; a symbolic
 * link is removed, never followed (a repository's link to a folder outside stays harmless).
 */
export async function clearWorkTree(dir: string): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(
    names.filter((name) => name !== ".git").map((name) => rm(path.join(dir, name), { recursive: true, force: true })),
  );
}

/** The files of HEAD written again into a checkout that {@link clearWorkTree} emptied (in part or whole). */
export async function restoreWorkTree(run: GitRun, dir: string): Promise<void> {
  await run(dir, ["reset", "--quiet", "--hard", "HEAD"]);
}
