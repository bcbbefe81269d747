import path from "node:path";
import { issueBranchName } from "./branch-name.js";
import type { RunJobDeps, Stage } from "../run-job-deps.js";
import type { RunRequest } from "../run-request.js";

/** The checkout a run works in, made by {@link prepareCheckout}. */
export interface PreparedCheckout {
  checkout: string;
  /** The branch cloned: the PR's head, or the default branch of an issue. */
  branch: string;
  /** Where the result is pushed: the PR's head, or a new branch for an issue. */
  workBranch: string;
  /**
   * The commit cloned, read only where it is needed (`undo` checks the branch against it, a fork's patch starts from
   * it): an ordinary run does without that git process.
   */
  baseSha: string | null;
  token: string;
}

/**
 * Phase 1: a fresh clone of the branch the run starts from (a re-run after a crash starts here again). The clone is
 * the run's longest wait, so it starts before the status update and `whileCloning` (the PR's context) ask for this
 * process's time: started after them, it waited ~20–40 ms for their requests to be built.
 */
export async function prepareCheckout(
  req: RunRequest,
  deps: RunJobDeps,
  dir: string,
  stage: Stage,
  whileCloning: () => void,
): Promise<PreparedCheckout> {
  const { target } = req;
  const branch = target.kind === "issue" ? req.defaultBranch : target.headRef;
  const url = target.kind === "issue" ? req.cloneUrl : target.headCloneUrl;
  const token = await deps.github.installationToken();
  const checkout = path.join(dir, "checkout");
  const cloned = deps.git.clone({ url, branch, dir: checkout, token });
  stage("cloning");
  whileCloning();
  deps.warmWhileCloning?.(req);
  await cloned;
  const needsBase =
    req.verb === "undo" || req.verb === "plan" || req.plan !== undefined || (target.kind !== "issue" && target.isFork);
  const baseSha = needsBase ? await deps.git.headSha(checkout) : null;
  const workBranch =
    target.kind === "issue" && req.verb !== "undo"
      ? issueBranchName(req.settings.branchPrefix, target.number, target.title)
      : branch;
  if (workBranch !== branch) await deps.git.createBranch(checkout, workBranch);
  return { checkout, branch, workBranch, baseSha, token };
}

/** The commit cloned, which {@link prepareCheckout} reads for the runs that need it (undo, a fork's patch). */
export function baseOf(prepared: PreparedCheckout): string {
  if (prepared.baseSha === null)
    throw new Error("the cloned commit was not read for this run (an undo or a fork's patch needs it)");
  return prepared.baseSha;
}
