import { PushRejectedError } from "../../workspace/git-errors.js";
import { planApiCommit } from "./plan-api-commit.js";
import type { CheckoutWork } from "../checkout-work.js";
import type { ApiCommitResult } from "../../github/repo-github.js";
import type { RunGit, RunGitHub } from "../run-ports.js";
import type { RunRequest } from "../run-request.js";

/** A commit sent ahead (see commit-ahead): GitHub's answer to come, and how to make the local commit if git must push after all. */
export interface SentAhead {
  made: Promise<ApiCommitResult>;
  /** The commit made locally, as sent (its sha; null when git could not make it). */
  commitLocally(): Promise<string | null>;
}

/** How a commit reached GitHub: made (and signed) by GitHub's API, or pushed with git (with the reason, if it fell back). */
export type Published = { via: "api"; oid: string; verified: boolean | null } | { via: "git"; fallback?: string };

/**
 * Publish the local commit `sha` (HEAD of `dir`) to `branch` of the run's repository: through GitHub's API so GitHub
 * signs it (`commit.signing: api`, the default), with the commit's parent as the compare-and-swap, or with `git push`
 * when signing is `git`, the API is not wired, or the API cannot express the change (the reason is returned for the
 * status comment). `newBranch`: the branch does not exist yet (an issue run) and is created at the parent first. A
 * moved branch ends the run like a refused push; the App never forces.
 */
export async function publishCommit(args: {
  req: Pick<RunRequest, "settings">;
  deps: { git: RunGit; github: RunGitHub };
  dir: string;
  sha: string;
  branch: string;
  token: string;
  newBranch?: boolean;
  /** Called once the commit's request (GitHub's API, or git's push) is under way: the caller's work for the wait. */
  whileWaiting?: () => void;
  /** Takes work on the checkout that may outlive this call (the removal of its files), for the run to await. */
  keep?: (work: CheckoutWork) => void;
  /**
   * This commit, sent to GitHub before any local commit (see commit-ahead): its answer is taken instead of reading
   * the commit back and asking now. `sha` is then "": should the API fail, the commit is made locally first
   * (`ahead.commitLocally`, after HEAD's files are written again), then pushed.
   */
  ahead?: SentAhead;
}): Promise<Published> {
  const { deps, dir, branch } = args;
  const api = deps.github.apiCommits;
  const push = async (fallback?: string): Promise<Published> => {
    const pushing = deps.git.push({ dir, branch, token: args.token });
    args.whileWaiting?.();
    await pushing;
    return fallback ? { via: "git", fallback } : { via: "git" };
  };
  let making: Promise<ApiCommitResult>;
  if (args.ahead) making = args.ahead.made;
  else {
    if ((args.req.settings.commitSigning ?? "api") === "git" || !api || !deps.git.readCommit) return push();
    const plan = planApiCommit(await deps.git.readCommit(dir, args.sha), branch);
    if (plan.kind === "git") return push(plan.reason);
    if (args.newBranch) await api.createBranch(branch, plan.request.expectedHeadOid);
    making = api.create(plan.request);
  }
  let made: ApiCommitResult;
  args.whileWaiting?.();
  const clearing = clearWhileMaking(args);
  try {
    made = await making;
  } catch (error) {
    // A GitHub without the mutation (an older Enterprise answering 404) or one that failed to answer: the green
    // change is still pushed, with git (the commit's files written again first: a moved branch is rebased on).
    // A moved branch and a refusal are answers, not throws, and end the run below.
    const why = error instanceof Error ? error.message.slice(0, 300) : String(error);
    if (clearing) {
      await clearing;
      await deps.git.restoreWorkTree!(dir);
    }
    if (args.ahead && !(await args.ahead.commitLocally()))
      throw new Error(
        `GitHub's API could not make the commit (${why}), and git could not make it here either, so nothing was pushed. Ask again to retry.`,
      );
    return push(`GitHub's API could not make the commit (${why})`);
  }
  if (made.kind === "moved") throw movedError(branch, made.reason);
  if (made.kind === "refused")
    throw new Error(
      `GitHub refused my commit to \`${branch}\`: ${made.reason}. Check that the App may write this repository's contents.`,
    );
  await deps.git.adoptRemoteCommit?.({ dir, branch, oid: made.oid, token: args.token });
  return { via: "api", oid: made.oid, verified: made.verified };
}

/**
 * The checkout's files, removed while GitHub makes the commit: the request holds their contents, and the run removes
 * the checkout when it ends (~0.1–0.3 s for 700 files on a busy disk, after the report), so that wait overlaps
 * GitHub's instead. Its `.git` stays for a push with git should the API fail (the files are then written again).
 * Null where the checkout outlives the run (the Action's) or cannot be restored. Never rejects.
 */
function clearWhileMaking(args: {
  deps: { git: RunGit };
  dir: string;
  keep?: (work: CheckoutWork) => void;
}): Promise<void> | null {
  const { git } = args.deps;
  if (!git.clearWorkTree || !git.restoreWorkTree || !args.keep) return null;
  const clearing = git.clearWorkTree(args.dir).catch(() => undefined);
  args.keep({ stop: () => undefined, done: clearing });
  return clearing;
}

/** Today's "someone pushed" ending, for a branch that moved under a compare-and-swap. */
export function movedError(branch: string, reason: string): PushRejectedError {
  return new PushRejectedError(
    `Someone pushed to \`${branch}\` while I was working, so nothing was pushed (I never force-push). Ask again to start from the new state of the branch.`,
    reason,
  );
}

/** The status comment's line for a commit pushed with git because the API could not make it (null otherwise). */
export function signingNote(published: Published): string | null {
  if (published.via === "git" && published.fallback)
    return `ℹ️ Pushed with \`git push\` instead of GitHub's API because ${published.fallback}, so this commit is not signed by GitHub (not Verified).`;
  if (published.via === "api" && published.verified === false)
    return "ℹ️ GitHub made this commit but does not report it as Verified.";
  return null;
}
