import { lstat } from "node:fs/promises";
import path from "node:path";
import { createConfinedReader } from "./confined-reader.js";
import { GitError } from "./git-errors.js";
import type { GitRun, GitRunResult } from "./git-runner.js";
import { parseNumstat, type DiffStat } from "./parse-numstat.js";

/**
 * `rev` when it names a commit, else the empty tree: on a branch with no commits yet, "changes since HEAD" are
 * all the files.
 */
export async function baseOrEmptyTree(run: GitRun, dir: string, rev: string): Promise<string> {
  const r = await run(dir, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], { allowFail: true });
  if (r.ok) return r.stdout.trim();
  return (await run(dir, ["hash-object", "-t", "tree", "/dev/null"])).stdout.trim();
}

/**
 * `diff` against `rev` at once, and only when git refuses that (no commit yet on this branch) against what
 * {@link baseOrEmptyTree} names: one process where a `rev-parse` first took two. `diff` is asked to allow a failure
 * only for `rev` itself, so the second attempt's failure throws.
 */
async function againstRevOrEmptyTree(
  run: GitRun,
  dir: string,
  rev: string,
  diff: (base: string) => Promise<GitRunResult>,
): Promise<GitRunResult> {
  const first = await diff(rev);
  if (first.ok) return first;
  const base = await baseOrEmptyTree(run, dir, rev);
  if (base === rev)
    throw new GitError(`git diff failed: ${first.output.trim().split("\n").slice(-8).join("\n")}`, first.output);
  return diff(base);
}

/** Untracked, not ignored files among `paths` (all of them when `paths` is empty). */
export async function untrackedAmong(run: GitRun, dir: string, paths: readonly string[]): Promise<string[]> {
  const r = await run(dir, ["ls-files", "-z", "--others", "--exclude-standard", "--", ...paths]);
  return r.stdout.split("\0").filter(Boolean);
}

/**
 * Added/removed lines per path between two revisions, or between `from` and the work tree when `to` is omitted.
 * The work-tree form counts untracked files as wholly added without touching the index (no `--intent-to-add`
 * left behind on a user's checkout).
 */
export async function diffStats(
  run: GitRun,
  dir: string,
  from: string,
  to?: string,
  paths: readonly string[] = [],
): Promise<DiffStat[]> {
  const numstat = (base: string) =>
    run(dir, ["diff", "--numstat", "-z", "--no-renames", base, ...(to ? [to] : []), "--", ...paths], {
      allowFail: from === base,
    });
  const tracked = parseNumstat((await againstRevOrEmptyTree(run, dir, from, numstat)).stdout);
  if (to) return tracked;
  const extra: DiffStat[] = [];
  // The work tree is the repository scripts' too: a new file may have become a link to the App key, /proc/…/environ
  // or /dev/zero, or a FIFO that never ends, by the time we count it. Count what git would commit, read confined.
  const reader = createConfinedReader(dir, { maxBytes: MAX_COUNTED_BYTES });
  for (const rel of await untrackedAmong(run, dir, paths)) {
    // Gone since git listed it (a script removed it): git will not commit it either, so there is nothing to count.
    const info = await lstat(path.join(dir, rel)).catch(() => null);
    if (!info) continue;
    // git commits a symbolic link as the one line of its target's path; the target itself is never read.
    if (info.isSymbolicLink()) {
      extra.push({ path: rel, added: 1, removed: 0 });
      continue;
    }
    const read = reader.read(rel);
    if (!read.ok && read.reason === "missing") continue;
    // Not a regular file, or too large to count: listed as changed, its lines not counted (like a binary file).
    const bytes = read.ok ? read.content : null;
    extra.push({ path: rel, added: !bytes || bytes.includes(0) ? 0 : countLines(bytes.toString("utf8")), removed: 0 });
  }
  return [...tracked, ...extra];
}

/**
 * The diff a commit message is written from (docs/behaviour.md#commits): "Added <file>" for each new file, then the diff of
 * the tracked paths against HEAD, then the new files' content as diffs from nothing.
 */
export async function diffText(run: GitRun, dir: string, paths: readonly string[]): Promise<string> {
  const untracked = await untrackedAmong(run, dir, paths);
  const diff = (base: string) => run(dir, ["diff", base, "--", ...paths], { allowFail: base === "HEAD" });
  const tracked = (await againstRevOrEmptyTree(run, dir, "HEAD", diff)).stdout;
  const added: string[] = [];
  for (const rel of untracked) {
    // --no-index exits 1 when the files differ, which they always do here.
    added.push((await run(dir, ["diff", "--no-index", "--", "/dev/null", rel], { allowFail: true })).stdout);
  }
  return [untracked.map((f) => `Added ${f}\n`).join(""), tracked, ...added].filter(Boolean).join("");
}

/** Larger new files are listed with 0 lines rather than read whole into memory to count them. */
const MAX_COUNTED_BYTES = 20_000_000;

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
