import { access, constants, lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { composeCommitMessage } from "./commit-message.js";
import { baseOrEmptyTree } from "./git-diff.js";
import { GitError, HookRejectedError, NothingToCommitError } from "./git-errors.js";
import { authorEnv, committerEnv, type GitIdentity } from "./git-identity.js";
import type { GitRun } from "./git-runner.js";
import { parseNumstat } from "./parse-numstat.js";
import { hasGitPart, insideRelative } from "./confined-reader.js";
import type { CommitRequest, CommitResult } from "./types.js";

const COMMIT_HOOKS = ["pre-commit", "prepare-commit-msg", "commit-msg"];

/**
 * Stage exactly `req.paths` (new, modified and deleted files; ignored files are never forced in) and commit only
 * them: `git commit --only` leaves the user's other changes, staged or not, as they were (docs/behaviour.md#commits).
 * Hooks run (no `--no-verify`, docs/behaviour.md#one-commit-per-run); a refusal throws `HookRejectedError` with the hook's output.
 */
export async function commitPaths(
  run: GitRun,
  dir: string,
  req: CommitRequest,
  committer: GitIdentity,
  redact: (text: string) => string,
): Promise<CommitResult> {
  const stage = await stageablePaths(run, dir, req.paths);
  if (stage.length === 0)
    throw new NothingToCommitError(
      `Nothing to commit: none of ${listOf(req.paths)} is a changed file git may track.`,
      "",
    );
  await refusePlantedLinks(dir, stage);
  await run(dir, ["add", "--all", "--", ...stage]);
  const base = await baseOrEmptyTree(run, dir, "HEAD");
  const changed = await run(dir, ["diff", "--cached", "--quiet", base, "--", ...stage], { allowFail: true });
  if (changed.exitCode === 0)
    throw new NothingToCommitError(`Nothing to commit: ${listOf(req.paths)} did not change.`, "");

  const { subject, message } = composeCommitMessage(req);
  const env = { ...authorEnv(req.author ?? committer), ...committerEnv(committer) };
  // whitespace cleanup: a body line starting with "#" (Markdown heading) is kept, unlike the default "strip".
  const r = await run(dir, ["commit", "--quiet", "--cleanup=whitespace", "--file", "-", "--", ...stage], {
    allowFail: true,
    input: redact(message),
    env,
  });
  if (!r.ok) throw await commitFailure(run, dir, r.output);
  const sha = (await run(dir, ["rev-parse", "HEAD"])).stdout.trim();
  return { sha, subject, stats: await commitStats(run, dir, sha) };
}

/** Lines added/removed per file by one commit (the first commit of a repository included). */
export async function commitStats(run: GitRun, dir: string, sha: string): Promise<CommitResult["stats"]> {
  const r = await run(dir, ["diff-tree", "--root", "-r", "--no-commit-id", "--no-renames", "--numstat", "-z", sha]);
  return parseNumstat(r.stdout);
}

/** Tracked files (present or deleted) and untracked, not ignored files among `paths`; directories expand. */
async function stageablePaths(run: GitRun, dir: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const r = await run(dir, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...paths]);
  return [...new Set(r.stdout.split("\0").filter(Boolean))];
}

/**
 * Paths among `paths` that are symbolic links to somewhere outside the checkout or into `.git/` (or to nothing).
 * The run's edits never create those (writes through such links are refused), so a repository script swapped them
 * in; committing one would publish a host path such as the App key's, and hand the next reader a link out.
 */
async function linksLeadingOut(dir: string, paths: readonly string[]): Promise<string[]> {
  const realRoot = await realpath(dir);
  const out: string[] = [];
  for (const rel of paths) {
    // Missing (a deletion being committed) is not a link; a link whose realpath fails leads nowhere and is refused.
    const info = await lstat(path.join(dir, rel)).catch(() => null);
    if (!info?.isSymbolicLink()) continue;
    const real = await realpath(path.join(dir, rel)).catch(() => null);
    const inside = real === null ? null : insideRelative(realRoot, real);
    if (inside === null || hasGitPart(inside)) out.push(rel);
  }
  return out;
}

/** Throw when a path about to be committed is a link a repository script planted (see {@link linksLeadingOut}). */
export async function refusePlantedLinks(dir: string, paths: readonly string[]): Promise<void> {
  const planted = await linksLeadingOut(dir, paths);
  if (planted.length === 0) return;
  throw new GitError(
    `Refused to commit: ${listOf(planted)} ${planted.length === 1 ? "is a symbolic link" : "are symbolic links"} leading outside the repository or into \`.git/\`. ` +
      "Edits never write such links, so a script of the repository (setup, lint or test) put them there; nothing was committed. Remove them and run again.",
    "",
  );
}

/** The error for a failed `git commit`: a hook's refusal (with its output) or git's own failure. */
export async function commitFailure(run: GitRun, dir: string, output: string): Promise<GitError> {
  const text = output.trim();
  if (await hasCommitHook(run, dir))
    return new HookRejectedError(
      `A git hook refused the commit (hooks are not bypassed):\n${lastLines(text, 30)}`,
      output,
    );
  return new GitError(`git commit failed: ${lastLines(text, 8)}`, output);
}

async function hasCommitHook(run: GitRun, dir: string): Promise<boolean> {
  for (const hook of COMMIT_HOOKS) {
    const p = (await run(dir, ["rev-parse", "--git-path", `hooks/${hook}`], { allowFail: true })).stdout.trim();
    if (!p) continue;
    // git runs only a hook file that exists and is executable: a failed access check means git skips it too.
    const ok = await access(path.resolve(dir, p), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return true;
  }
  return false;
}

function listOf(paths: readonly string[]): string {
  const shown = paths
    .slice(0, 5)
    .map((p) => `\`${p}\``)
    .join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown || "(no paths)";
}

function lastLines(text: string, n: number): string {
  return text.split("\n").slice(-n).join("\n");
}
