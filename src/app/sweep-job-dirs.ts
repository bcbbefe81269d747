import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { AppEnv } from "../config/env.js";
import { JOB_DIR_PREFIX, jobsRoot } from "./execute-run.js";

/** Whether a process with this id runs on this machine (signal 0 only checks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; ESRCH: it is gone.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Remove the checkouts of jobs whose process is gone (`aider-bot-job-<pid>-…` under the work dir): left by a crash
 * or a `kill -9`. A checkout of a live process (another worker sharing the work dir) is kept. Returns what was removed.
 */
export async function sweepJobDirs(env: Pick<AppEnv, "workDir">): Promise<string[]> {
  const root = jobsRoot(env);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    // No work dir yet: nothing was left behind (the first job creates it).
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const swept: string[] = [];
  for (const name of names) {
    const m = new RegExp(`^${JOB_DIR_PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    await rm(path.join(root, name), { recursive: true, force: true });
    swept.push(name);
  }
  return swept;
}
