import { GitError, PushRejectedError } from "./git-errors.js";
import { committerEnv, type GitIdentity } from "./git-identity.js";
import type { GitRun } from "./git-runner.js";
import { guardRemote } from "./guard-remote.js";

export interface PushRequest {
  dir: string;
  /** Remote branch to update (HEAD is pushed to `refs/heads/<branch>`). */
  branch: string;
  token?: string;
  /** Record `origin/<branch>` as the upstream of the current branch. */
  setUpstream?: boolean;
  remote?: string;
}

export interface PushContext {
  committer: GitIdentity;
  /** The URL this checkout was cloned from, when known: the token is only sent there. */
  cloneUrl?: string;
}

/** What git says when the remote has commits we lack (not for hooks, protection rules or auth failures). */
const MOVED = /\[rejected\].*\((fetch first|non-fast-forward)\)|updates were rejected because the (remote contains work|tip of your current branch is behind)/i;

/**
 * Push HEAD without force. When the remote branch moved meanwhile: fetch it, rebase our own commits (those after
 * the remote tip we started from) onto it once, and push again; a conflicting move gives `PushRejectedError`
 * and leaves the checkout as it was before the rebase.
 */
export async function pushBranch(run: GitRun, req: PushRequest, ctx: PushContext): Promise<void> {
  const remote = req.remote ?? "origin";
  if (req.token) await guardRemote(run, req.dir, remote, ctx.cloneUrl);
  const tracking = `refs/remotes/${remote}/${req.branch}`;
  const args = ["push", "--quiet", ...(req.setUpstream ? ["--set-upstream"] : []), remote, `HEAD:refs/heads/${req.branch}`];
  const first = await run(req.dir, args, { token: req.token, allowFail: true });
  if (first.ok) return afterPush(run, req, remote);
  if (!MOVED.test(first.output)) throw new GitError(`git push to \`${req.branch}\` failed: ${first.output.trim()}`, first.output);

  const startedFrom = await run(req.dir, ["rev-parse", "--verify", "--quiet", tracking], { allowFail: true });
  await run(req.dir, ["fetch", "--quiet", "--no-tags", remote, `+refs/heads/${req.branch}:${tracking}`], { token: req.token });
  // Replaying only startedFrom..HEAD keeps commits the remote dropped (a force-push) from coming back.
  const base = startedFrom.ok ? startedFrom.stdout.trim() : "";
  const ours = base !== "" && (await run(req.dir, ["merge-base", "--is-ancestor", base, "HEAD"], { allowFail: true })).ok;
  const onto = ours ? ["--onto", tracking, base] : [tracking];
  const rebase = await run(req.dir, ["rebase", "--quiet", "--autostash", ...onto], { allowFail: true, env: committerEnv(ctx.committer) });
  if (!rebase.ok) {
    await run(req.dir, ["rebase", "--abort"], { allowFail: true });
    throw new PushRejectedError(
      `The branch \`${req.branch}\` moved while I was working and my commit conflicts with the new commits, so nothing was pushed. Ask again to start from the new state of the branch.`,
      rebase.output,
    );
  }
  const second = await run(req.dir, args, { token: req.token, allowFail: true });
  if (!second.ok) {
    if (MOVED.test(second.output)) {
      throw new PushRejectedError(`The branch \`${req.branch}\` moved again while I was pushing, so nothing was pushed.`, second.output);
    }
    throw new GitError(`git push to \`${req.branch}\` failed: ${second.output.trim()}`, second.output);
  }
  await afterPush(run, req, remote);
}

/**
 * A single-branch clone has no fetch refspec for a branch we created, so `-u` alone leaves `@{upstream}`
 * unresolvable and `origin/<branch>` missing: add the refspec and record the pushed tip.
 */
async function afterPush(run: GitRun, req: PushRequest, remote: string): Promise<void> {
  if (!req.setUpstream) return;
  const refspec = `+refs/heads/${req.branch}:refs/remotes/${remote}/${req.branch}`;
  const existing = (await run(req.dir, ["config", "--get-all", `remote.${remote}.fetch`], { allowFail: true })).stdout.split("\n");
  const covered = existing.some((line) => line.trim() === refspec || line.trim() === `+refs/heads/*:refs/remotes/${remote}/*`);
  if (!covered) await run(req.dir, ["config", "--add", `remote.${remote}.fetch`, refspec]);
  await run(req.dir, ["update-ref", `refs/remotes/${remote}/${req.branch}`, "HEAD"]);
}
