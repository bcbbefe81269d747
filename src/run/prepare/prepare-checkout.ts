import path from "node:path";
import type { PendingCheckout } from "../../workspace/pending-checkout.js";
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
  /**
   * The checkout's files are still being written (git has its commit): an ordinary run starts its first round
   * meanwhile (see PendingCheckout). Null: they are written.
   */
  pending: PendingCheckout | null;
}

/**
 * Phase 1: a fresh clone of the branch the run starts from (a re-run after a crash starts here again). The clone is
 * the run's longest wait, so it starts before the status update and `whileCloning` (the PR's context) ask for this
 * process's time: started after them, it waited ~20–40 ms for their requests to be built.
 *
 * An ordinary run (`run`, `ask`) returns as soon as the checkout's git has the commit, when the driver's clone says
 * so (the App's clones, from the mirror or plain): writing the files is the clone's longest part, and the first round
 * needs none of them (the file list and the repo map come from git; see PendingCheckout). Anything that reads or
 * writes the files waits for `pending.written`, which also creates an issue run's branch and, for a fork's pull
 * request, reads the commit its patch starts from. Runs that read the commit before any round (undo, plan, an
 * approved plan) wait for the whole clone, as every run did.
 */
export async function prepareCheckout(
  req: RunRequest,
  deps: RunJobDeps,
  dir: string,
  stage: Stage,
  whileCloning: () => void,
): Promise<PreparedCheckout> {
  const { target } = req;
  const { branch, url } = checkoutSource(req);
  const token = await deps.github.installationToken();
  const checkout = path.join(dir, "checkout");
  // Runs that read the commit before any round (undo checks the branch against it, a plan is made on it, an approved
  // plan runs only on it) wait for the whole clone. A fork's patch needs it only when published (see below).
  const needsBase = req.verb === "undo" || req.verb === "plan" || req.plan !== undefined;
  const fork = target.kind !== "issue" && target.isFork;
  let told: (commit: string) => void = () => undefined;
  const tree = new Promise<string>((resolve) => (told = resolve));
  const cloned = deps.git.clone({ url, branch, dir: checkout, token, ...(needsBase ? {} : { onTree: told }) });
  stage("cloning");
  whileCloning();
  deps.warmWhileCloning?.(req);
  const workBranch =
    target.kind === "issue" && req.verb !== "undo"
      ? issueBranchName(req.settings.branchPrefix, target.number, target.title)
      : branch;
  const branched = async () => {
    if (workBranch !== branch) await deps.git.createBranch(checkout, workBranch);
  };
  // Whichever comes first: the whole clone (a clone that cannot tell, or fails), or its commit.
  const early = needsBase ? null : await Promise.race([cloned.then(() => null), tree]);
  if (early === null) {
    await cloned;
    const baseSha = needsBase || fork ? await deps.git.headSha(checkout) : null;
    await branched();
    return { checkout, branch, workBranch, baseSha, token, pending: null };
  }
  const prepared: PreparedCheckout = { checkout, branch, workBranch, baseSha: null, token, pending: null };
  const written = cloned.then(async (made) => {
    await branched();
    // A fork's patch starts from the commit whose files were written, known here, before anything publishes
    // (publishing waits for the files): the one told, or the one of a checkout that replaced it.
    if (fork) prepared.baseSha = (made && made.tree) || (await deps.git.headSha(checkout));
    return !!made && made.tree === early;
  });
  prepared.pending = { commit: early, written };
  return prepared;
}

/** The branch a run's checkout is cloned from, and its URL: the PR's head, or an issue's default branch. */
export function checkoutSource(req: Pick<RunRequest, "target" | "defaultBranch" | "cloneUrl">): {
  branch: string;
  url: string;
} {
  const { target } = req;
  return target.kind === "issue"
    ? { branch: req.defaultBranch, url: req.cloneUrl }
    : { branch: target.headRef, url: target.headCloneUrl };
}

/** The commit cloned, which {@link prepareCheckout} reads for the runs that need it (undo, a fork's patch). */
export function baseOf(prepared: PreparedCheckout): string {
  if (prepared.baseSha === null)
    throw new Error("the cloned commit was not read for this run (an undo or a fork's patch needs it)");
  return prepared.baseSha;
}
