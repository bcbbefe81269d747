import { composeCommitMessage } from "./commit-message.js";
import { commitFailure, refusePlantedLinks } from "./git-commit.js";
import { GitError, NothingToCommitError } from "./git-errors.js";
import { authorEnv, committerEnv, type GitIdentity } from "./git-identity.js";
import type { GitRun } from "./git-runner.js";
import { numstatOfDiff, parseNumstat, sectionPath } from "./parse-numstat.js";
import type { CommitRequest, CommitResult } from "./types.js";
import { readCommitAhead } from "./git-commit-ahead.js";
import { blobId, type CommitChanges } from "./read-commit-changes.js";

/** A run's files, staged as far as needed to diff them, and the one commit that can follow. */
export interface PreparedCommit {
  /** Same text as `diffText` (the "Added <file>" lines, the tracked diff, then the new files' diffs); "" when nothing changed. */
  diff: string;
  /** Commit exactly the prepared paths; hooks run (see `commitPaths`). */
  commit(req: Omit<CommitRequest, "paths">): Promise<CommitResult>;
  /**
   * The commit `commit(req)` would make, read without git (see `readCommitAhead`), or null when anything besides
   * git could decide it. Absent where the caller did not say which files are executable.
   */
  ahead?(req: Omit<CommitRequest, "paths">, maxBytes: number): Promise<CommitChanges | null>;
}

/**
 * The commit path in as few git processes as the work allows (each one costs tens of milliseconds on a busy
 * machine, and this path used to start thirteen one after another plus one per new file):
 * `ls-files -t` sorts the paths into tracked and new, `add` stages the new ones only (so the diff against HEAD sees
 * them, however many), one `diff HEAD` gives the whole text, and after `commit --only` one `diff-tree HEAD` gives
 * both the new sha and its per-file stats. An ordinary run (no new file) thus costs four processes. Two of them are
 * skipped when they can be: `ls-files` when every path is a file the caller knows git tracks (`knownTracked`), and
 * `diff-tree` when the commit's own summary agrees with the diff (see `statsFromSummary`): two processes then.
 * `knownTracked` is what git tracked when the run listed the checkout. The index changes only through git commands:
 * the run's own come after that listing, and the app's sandbox mounts `.git` read-only for the repository's commands.
 * (Should a command outside it have dropped a path from the index, `commit --only` still commits that path as the work
 * tree has it, and the stats come from git, since the diff no longer agrees with the commit's summary.)
 * Paths git may not track (ignored, or gone and never tracked) are left out, as `commitPaths` does.
 */
export async function prepareCommit(
  run: GitRun,
  dir: string,
  paths: readonly string[],
  committer: () => Promise<GitIdentity>,
  redact: (text: string) => string,
  knownTracked?: ReadonlySet<string>,
  offered?: OfferedDiff,
  /** To read the commit ahead (`ahead`): the tracked executables, and the HOME git runs with. Absent: no `ahead`. */
  readsAhead?: { executables: ReadonlySet<string>; home: string | undefined },
): Promise<PreparedCommit> {
  const known = knownTracked && paths.every((p) => knownTracked.has(p));
  const { tracked, untracked } = known
    ? { tracked: [...new Set(paths)], untracked: [] }
    : paths.length
      ? await sortPaths(run, dir, paths)
      : { tracked: [], untracked: [] };
  const stage = [...tracked, ...untracked];
  if (stage.length === 0)
    return {
      diff: "",
      commit: async () => nothingToCommit(`none of ${listOf(paths)} is a changed file git may track`),
    };
  if (untracked.length) await run(dir, ["add", "--all", "--", ...untracked]);
  // A name git quotes in a diff header cannot be matched to its section: then the new files get their own diff.
  const diff =
    known && offered && fromTheIndex(offered, tracked)
      ? offered.diff
      : untracked.some(needsQuoting)
        ? [
            untracked.map((f) => `Added ${f}\n`).join(""),
            tracked.length ? await diffAgainstHead(run, dir, tracked) : "",
            await diffAgainstHead(run, dir, untracked),
          ].join("")
        : composeDiffText(await diffAgainstHead(run, dir, stage), untracked);
  return {
    diff,
    ...(readsAhead && diff
      ? {
          ahead: async (req: Omit<CommitRequest, "paths">, maxBytes: number) =>
            readCommitAhead({
              dir,
              tracked,
              untracked,
              message: redact(composeCommitMessage(req).message),
              executables: readsAhead.executables,
              maxBytes,
              home: readsAhead.home,
            }),
        }
      : {}),
    async commit(req) {
      if (!diff) return nothingToCommit(`${listOf(paths)} did not change`);
      await refusePlantedLinks(dir, stage);
      const who = await committer();
      const { subject, message } = composeCommitMessage(req);
      const env = { ...authorEnv(req.author ?? who), ...committerEnv(who) };
      // whitespace cleanup: a body line starting with "#" (Markdown heading) is kept, unlike the default "strip".
      // Not --quiet: the summary names the new commit in full (core.abbrev=no) and counts its lines.
      const r = await run(
        dir,
        ["-c", "core.abbrev=no", "commit", "--cleanup=whitespace", "--file", "-", "--", ...stage],
        { allowFail: true, input: redact(message), env },
      );
      if (!r.ok) throw await commitFailure(run, dir, r.output);
      const summarised = statsFromSummary(r.stdout, diff);
      if (summarised) return { sha: summarised.sha, subject, stats: summarised.stats };
      // Without --no-commit-id, diff-tree names the commit first: the sha and the stats in one process.
      const out = (await run(dir, ["diff-tree", "--root", "-r", "--no-renames", "--numstat", "-z", "HEAD"])).stdout;
      const nul = out.indexOf("\0");
      const sha = (nul < 0 ? out : out.slice(0, nul)).trim();
      if (!/^[0-9a-f]{40,64}$/.test(sha))
        throw new GitError(`git diff-tree did not name the new commit: ${out.slice(0, 200)}`, out);
      return { sha, subject, stats: parseNumstat(nul < 0 ? "" : out.slice(nul + 1)) };
    },
  };
}

/**
 * A diff of a commit's paths that the caller made itself (the coder's, for an early commit subject): from `from`, each
 * path as the caller first read it, to the work tree as it is now. It stands in for `git diff HEAD` (one process
 * less) only when every path is one git tracks and each `from` is, byte for byte, the blob git's index holds for it
 * (`indexIds`, listed before any of the run's commands; only git commands change the index). It then shows the same
 * change, though its hunks may be cut differently; the commit's stats still come from git when its counts disagree.
 */
export interface OfferedDiff {
  diff: string;
  from: ReadonlyMap<string, string | null>;
  indexIds: ReadonlyMap<string, string>;
}

/** Whether each path's `from` is the blob the index holds for it (sha-1 or sha-256 ids, as the index uses). */
function fromTheIndex(offered: OfferedDiff, paths: readonly string[]): boolean {
  return paths.every((path) => {
    const content = offered.from.get(path);
    const id = offered.indexIds.get(path);
    if (typeof content !== "string" || id === undefined) return false;
    return blobId(Buffer.from(content, "utf8"), id.length) === id;
  });
}

function nothingToCommit(why: string): never {
  throw new NothingToCommitError(`Nothing to commit: ${why}.`, "");
}

/** Tracked (present or deleted) and untracked-not-ignored files among `paths`, folders expanded, in git's order. */
async function sortPaths(
  run: GitRun,
  dir: string,
  paths: readonly string[],
): Promise<{ tracked: string[]; untracked: string[] }> {
  const out = (await run(dir, ["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard", "--", ...paths]))
    .stdout;
  const tracked = new Set<string>();
  const untracked = new Set<string>();
  for (const entry of out.split("\0")) {
    if (entry.length < 3 || entry[1] !== " ") continue;
    (entry[0] === "?" ? untracked : tracked).add(entry.slice(2));
  }
  return { tracked: [...tracked], untracked: [...untracked] };
}

/** `git diff HEAD` of these paths; on a branch with no commit yet, against the empty tree. */
async function diffAgainstHead(run: GitRun, dir: string, paths: readonly string[]): Promise<string> {
  // No renames: a deleted file and a new one stay two entries, as in the separate diffs this replaces.
  const r = await run(dir, ["diff", "--no-renames", "HEAD", "--", ...paths], { allowFail: true });
  if (r.ok) return r.stdout;
  const head = await run(dir, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { allowFail: true });
  if (head.ok) throw new GitError(`git diff failed: ${r.output.trim().split("\n").slice(-8).join("\n")}`, r.output);
  const empty = (await run(dir, ["hash-object", "-t", "tree", "/dev/null"])).stdout.trim();
  return (await run(dir, ["diff", "--no-renames", empty, "--", ...paths])).stdout;
}

/**
 * The text `diffText` gives, from one diff of tracked and new files together: "Added <file>" per new file, the
 * tracked files' sections, then the new files' sections (each the same bytes `diff --no-index /dev/null <file>`
 * prints). Sections start at "diff --git " lines, which no hunk line can be (those start with " ", "+", "-", "\\", "@").
 */
export function composeDiffText(diff: string, untracked: readonly string[]): string {
  const added = untracked.map((f) => `Added ${f}\n`).join("");
  if (untracked.length === 0) return diff;
  const news = new Set(untracked);
  const tracked: string[] = [];
  const fresh: string[] = [];
  for (const section of diff.split(/^(?=diff --git )/m)) {
    if (!section) continue;
    const path = newFilePath(section);
    (path !== null && news.has(path) ? fresh : tracked).push(section);
  }
  return [added, tracked.join(""), fresh.join("")].join("");
}

/** The path of a "new file" section, when its header names it unquoted (`diff --git a/p b/p`); else null. */
function newFilePath(section: string): string | null {
  // Hunk lines start with " ", "+", "-" or "\\", so only the extended header can hold this line.
  return /^new file mode /m.test(section) ? sectionPath(section) : null;
}

/**
 * The new commit's id and totals from what `git -c core.abbrev=no commit` prints on stdout: its first line
 * `[<branch> <sha>] <subject>` (`[main (root-commit) <sha>]`, `[detached HEAD <sha>]`), then, after any `Author:` or
 * `Date:` line, ` <n> file(s) changed, <a> insertion(s)(+), <d> deletion(s)(-)`. A branch name holds no space, so the
 * first ` <sha>]` is the commit's. Hooks print to stderr, never here. Null when the output does not read so (another
 * git, another language): the caller then asks git.
 */
export function parseCommitSummary(
  stdout: string,
): { sha: string; files: number; added: number; removed: number } | null {
  const lines = stdout.split("\n");
  const sha = /^\[[^\n]*? ([0-9a-f]{40}|[0-9a-f]{64})\] /.exec(lines[0] ?? "")?.[1];
  if (!sha) return null;
  for (const line of lines.slice(1, 5)) {
    const m = /^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?$/.exec(line);
    if (m) return { sha, files: Number(m[1]), added: Number(m[2] ?? 0), removed: Number(m[3] ?? 0) };
  }
  return null;
}

/**
 * The commit's id and per-file stats without a `diff-tree`: from its summary, and from the diff text of exactly what
 * it staged, when the two agree (same number of files, lines added and removed). A hook that changed files, a
 * quoted name or an unreadable summary fails that test: then null.
 */
function statsFromSummary(stdout: string, diff: string): { sha: string; stats: CommitResult["stats"] } | null {
  const summary = parseCommitSummary(stdout);
  const stats = summary ? numstatOfDiff(diff) : null;
  if (!summary || !stats) return null;
  const added = stats.reduce((n, s) => n + s.added, 0);
  const removed = stats.reduce((n, s) => n + s.removed, 0);
  return stats.length === summary.files && added === summary.added && removed === summary.removed
    ? { sha: summary.sha, stats }
    : null;
}

/** Whether git quotes this name in a diff header even with core.quotePath=false (`"`, `\\`, control characters). */
function needsQuoting(name: string): boolean {
  return /["\\\x00-\x1f\x7f]/.test(name);
}

function listOf(paths: readonly string[]): string {
  const shown = paths
    .slice(0, 5)
    .map((p) => `\`${p}\``)
    .join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown || "(no paths)";
}
