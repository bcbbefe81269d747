import { openCleanGitDir } from "./git-clean-dir.js";
import { GitError, PushRejectedError } from "./git-errors.js";
import { committerEnv, type GitIdentity } from "./git-identity.js";
import type { GitRun, GitRunResult } from "./git-runner.js";

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
  /** The URL this checkout was cloned from, when known: the token is only ever sent there. */
  cloneUrl?: string;
  /** HEAD's sha when the caller knows it (it just made that commit): saves a `rev-parse`. */
  head?: string;
}

/** How pushes and fetches reach the remote: by URL from a clean git dir (with a token), or the checkout's remote. */
interface Transport {
  push(sha: string, branch: string): Promise<GitRunResult>;
  /** Fetch `branch`; returns its tip (objects land in the checkout's store). */
  fetch(branch: string, extraArgs?: readonly string[], signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/** What git says when the remote has commits we lack (not for hooks, protection rules or auth failures). */
const MOVED =
  /\[rejected\].*\((fetch first|non-fast-forward)\)|updates were rejected because the (remote contains work|tip of your current branch is behind)/i;

/**
 * Push HEAD without force. When the remote branch moved meanwhile: fetch it, rebase our own commits (those after
 * the remote tip we started from) onto it once, and push again; a conflicting move gives `PushRejectedError`
 * and leaves the checkout as it was before the rebase. With a token, the network commands run from a clean git
 * dir to the clone URL (see `openCleanGitDir`): nothing the repository wrote into `.git` can redirect them.
 */
export async function pushBranch(run: GitRun, req: PushRequest, ctx: PushContext): Promise<void> {
  const remote = req.remote ?? "origin";
  const tracking = `refs/remotes/${remote}/${req.branch}`;
  const transport = await openTransport(run, req, ctx, remote);
  try {
    const head = async () => (await run(req.dir, ["rev-parse", "--verify", "HEAD^{commit}"])).stdout.trim();
    const first = await transport.push(ctx.head ?? (await head()), req.branch);
    if (first.ok) return await afterPush(run, req, remote);
    if (!MOVED.test(first.output))
      throw new GitError(`git push to \`${req.branch}\` failed: ${first.output.trim()}`, first.output);

    const startedFrom = await run(req.dir, ["rev-parse", "--verify", "--quiet", tracking], { allowFail: true });
    const tip = await transport.fetch(req.branch);
    await run(req.dir, ["update-ref", tracking, tip]);
    // Replaying only startedFrom..HEAD keeps commits the remote dropped (a force-push) from coming back.
    const base = startedFrom.ok ? startedFrom.stdout.trim() : "";
    const ours =
      base !== "" && (await run(req.dir, ["merge-base", "--is-ancestor", base, "HEAD"], { allowFail: true })).ok;
    const onto = ours ? ["--onto", tracking, base] : [tracking];
    const rebase = await run(req.dir, ["rebase", "--quiet", "--autostash", ...onto], {
      allowFail: true,
      env: committerEnv(ctx.committer),
    });
    if (!rebase.ok) {
      await run(req.dir, ["rebase", "--abort"], { allowFail: true });
      throw new PushRejectedError(
        `The branch \`${req.branch}\` moved while I was working and my commit conflicts with the new commits, so nothing was pushed. Ask again to start from the new state of the branch.`,
        rebase.output,
      );
    }
    const second = await transport.push(await head(), req.branch);
    if (!second.ok) {
      if (MOVED.test(second.output)) {
        throw new PushRejectedError(
          `The branch \`${req.branch}\` moved again while I was pushing, so nothing was pushed.`,
          second.output,
        );
      }
      throw new GitError(`git push to \`${req.branch}\` failed: ${second.output.trim()}`, second.output);
    }
    await afterPush(run, req, remote);
  } finally {
    await transport.close();
  }
}

async function openTransport(run: GitRun, req: PushRequest, ctx: PushContext, remote: string): Promise<Transport> {
  if (!req.token) {
    // No credential at stake: the checkout's own remote, as a user's git would.
    return {
      push: (sha, branch) =>
        run(req.dir, ["push", "--quiet", remote, `${sha}:refs/heads/${branch}`], { allowFail: true }),
      async fetch(branch) {
        const tracking = `refs/remotes/${remote}/${branch}`;
        await run(req.dir, ["fetch", "--quiet", "--no-tags", remote, `+refs/heads/${branch}:${tracking}`]);
        return (await run(req.dir, ["rev-parse", tracking])).stdout.trim();
      },
      close: async () => {},
    };
  }
  return cleanTransport(run, req.dir, ctx.cloneUrl, req.token);
}

/** Token-bearing push/fetch to `url` from a clean git dir. */
export async function cleanTransport(
  run: GitRun,
  dir: string,
  url: string | undefined,
  token: string,
): Promise<Transport> {
  if (!url)
    throw new GitError(
      "Refusing to send credentials: this checkout's clone URL is not known, so there is no trusted place to send them.",
      "",
    );
  const clean = await openCleanGitDir(run, dir);
  return {
    push: (sha, branch) =>
      clean.run(["push", "--quiet", "--", url, `${sha}:refs/heads/${branch}`], { token, allowFail: true }),
    async fetch(branch, extraArgs = [], signal) {
      const ref = "refs/aider-bot/fetched";
      await clean.run(["fetch", "--quiet", "--no-tags", ...extraArgs, "--", url, `+refs/heads/${branch}:${ref}`], {
        token,
        ...(signal ? { signal } : {}),
      });
      return (await clean.run(["rev-parse", ref])).stdout.trim();
    },
    close: () => clean.close(),
  };
}

/**
 * A single-branch clone has no fetch refspec for a branch we created, so `-u` alone would leave `@{upstream}`
 * unresolvable and `origin/<branch>` missing: add the refspec, record the pushed tip and the upstream.
 */
async function afterPush(run: GitRun, req: PushRequest, remote: string): Promise<void> {
  if (!req.setUpstream) return;
  const refspec = `+refs/heads/${req.branch}:refs/remotes/${remote}/${req.branch}`;
  const existing = (
    await run(req.dir, ["config", "--get-all", `remote.${remote}.fetch`], { allowFail: true })
  ).stdout.split("\n");
  const covered = existing.some(
    (line) => line.trim() === refspec || line.trim() === `+refs/heads/*:refs/remotes/${remote}/*`,
  );
  if (!covered) await run(req.dir, ["config", "--add", `remote.${remote}.fetch`, refspec]);
  await run(req.dir, ["update-ref", `refs/remotes/${remote}/${req.branch}`, "HEAD"]);
  const current = await run(req.dir, ["symbolic-ref", "--quiet", "--short", "HEAD"], { allowFail: true });
  if (current.ok) {
    const local = current.stdout.trim();
    await run(req.dir, ["config", `branch.${local}.remote`, remote]);
    await run(req.dir, ["config", `branch.${local}.merge`, `refs/heads/${req.branch}`]);
  }
}
