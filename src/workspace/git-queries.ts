import { GitError } from "./git-errors.js";
import type { GitRun } from "./git-runner.js";

export interface StatusEntry {
  /** Index (staged) status letter, e.g. "M", "A", "D", "R", "?" for untracked, " " for none. */
  index: string;
  /** Work-tree status letter. */
  worktree: string;
  path: string;
  /** Original path of a rename or copy. */
  from?: string;
}

export interface LogEntry {
  sha: string;
  author: string;
  authorEmail: string;
  subject: string;
  /** Full message (subject, body, trailers). */
  message: string;
}

/** `git status --porcelain=v1 -z`, parsed; untracked files listed one by one. */
export async function statusPorcelain(run: GitRun, dir: string): Promise<StatusEntry[]> {
  const fields = (await run(dir, ["status", "--porcelain=v1", "-z", "--untracked-files=all"])).stdout.split("\0");
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const entry: StatusEntry = { index: f.charAt(0), worktree: f.charAt(1), path: f.slice(3) };
    // With -z a rename's original path is the next field.
    if (entry.index === "R" || entry.index === "C") entry.from = fields[++i];
    entries.push(entry);
  }
  return entries;
}

/** The newest `n` commits reachable from HEAD (or `rev`). */
export async function log(run: GitRun, dir: string, n: number, rev = "HEAD"): Promise<LogEntry[]> {
  const out = (
    await run(dir, ["log", `-${Math.max(1, Math.floor(n))}`, "--format=%H%x1f%an%x1f%ae%x1f%B%x1e", rev, "--"])
  ).stdout;
  return out
    .split("\x1e")
    .map((s) => s.replace(/^\n/, ""))
    .filter((s) => s.trim())
    .map((record) => {
      const [sha = "", author = "", authorEmail = "", message = ""] = record.split("\x1f");
      const trimmed = message.trim();
      return { sha, author, authorEmail, subject: trimmed.split("\n")[0] ?? "", message: trimmed };
    });
}

/** The checked-out branch, or null on a detached HEAD. */
export async function currentBranch(run: GitRun, dir: string): Promise<string | null> {
  const r = await run(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"], { allowFail: true });
  return r.ok ? r.stdout.trim() : null;
}

/** Whether `ancestor` is reachable from `descendant` (a commit counts as its own ancestor). */
export async function isAncestor(run: GitRun, dir: string, ancestor: string, descendant: string): Promise<boolean> {
  const r = await run(dir, ["merge-base", "--is-ancestor", ancestor, descendant], { allowFail: true });
  if (r.exitCode === 0) return true;
  if (r.exitCode === 1) return false;
  throw new GitError(`Cannot compare ${ancestor} and ${descendant}: ${r.output.trim()}`, r.output);
}

/**
 * The remote's default branch: from `refs/remotes/<remote>/HEAD` when the clone recorded it, else asked of the
 * server (`ls-remote --symref`). Null when neither knows.
 */
export async function defaultRemoteBranch(
  run: GitRun,
  dir: string,
  opts: { remote?: string; localOnly?: boolean } = {},
): Promise<string | null> {
  const remote = opts.remote ?? "origin";
  const local = await run(dir, ["symbolic-ref", "--quiet", `refs/remotes/${remote}/HEAD`], { allowFail: true });
  if (local.ok) return local.stdout.trim().replace(`refs/remotes/${remote}/`, "");
  if (opts.localOnly) return null;
  return symrefHead((await run(dir, ["ls-remote", "--symref", remote, "HEAD"], { allowFail: true })).stdout);
}

/** The branch `ls-remote --symref … HEAD` names, or null. */
export function symrefHead(lsRemote: string): string | null {
  const m = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(lsRemote);
  return m ? m[1]! : null;
}
