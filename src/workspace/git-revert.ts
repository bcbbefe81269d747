import { composeCommitMessage } from "./commit-message.js";
import { GitError, HookRejectedError } from "./git-errors.js";
import { authorEnv, committerEnv, type GitIdentity } from "./git-identity.js";
import type { GitRun } from "./git-runner.js";

/**
 * Undo one commit as a new commit (`/aider undo`; history that may be pushed is never rewritten). Refuses when
 * tracked files have uncommitted changes. Hooks run. Returns the new commit's sha.
 */
export async function revertCommit(
  run: GitRun,
  dir: string,
  sha: string,
  committer: GitIdentity,
  redact: (text: string) => string,
  trailers: readonly string[] = [],
): Promise<string> {
  const dirty = await run(dir, ["status", "--porcelain", "--untracked-files=no"]);
  if (dirty.stdout.trim()) {
    throw new GitError(
      `Cannot revert ${sha.slice(0, 7)}: the checkout has uncommitted changes:\n${dirty.stdout.trim()}`,
      dirty.stdout,
    );
  }
  const full = (await run(dir, ["rev-parse", "--verify", `${sha}^{commit}`])).stdout.trim();
  const subject = (await run(dir, ["log", "-1", "--format=%s", full])).stdout.trim();
  const r = await run(dir, ["revert", "--no-commit", full], { allowFail: true, env: committerEnv(committer) });
  if (!r.ok) {
    await restore(run, dir);
    throw new GitError(
      `Reverting ${full.slice(0, 7)} failed (later commits changed the same lines?): ${r.output.trim()}`,
      r.output,
    );
  }
  const { message } = composeCommitMessage({
    subject: `Revert "${subject}"`,
    body: `This reverts commit ${full}.`,
    trailers,
  });
  const env = { ...authorEnv(committer), ...committerEnv(committer) };
  const c = await run(dir, ["commit", "--quiet", "--cleanup=whitespace", "--file", "-"], {
    allowFail: true,
    input: redact(message),
    env,
  });
  if (!c.ok) {
    await restore(run, dir);
    throw new HookRejectedError(
      `The revert commit was refused:\n${c.output.trim().split("\n").slice(-30).join("\n")}`,
      c.output,
    );
  }
  return (await run(dir, ["rev-parse", "HEAD"])).stdout.trim();
}

/** Back to HEAD: the tree was clean before we started, so nothing of the user's is lost. */
async function restore(run: GitRun, dir: string): Promise<void> {
  await run(dir, ["reset", "--quiet", "--hard", "HEAD"], { allowFail: true });
  await run(dir, ["revert", "--quit"], { allowFail: true });
}
