import type { CoderResult } from "../../coder/types.js";
import type { CheckoutWork } from "../checkout-work.js";
import { checksFailingCommit } from "../../coder/commit-policy.js";
import { uncheckedReason } from "../../coder/unchecked.js";
import { baseOf, type PreparedCheckout } from "../prepare/prepare-checkout.js";
import { publishCommit, signingNote, type SentAhead } from "./publish-commit.js";
import { publishToFork } from "./publish-fork.js";
import type { RunJobDeps, Stage } from "../run-job-deps.js";
import type { RunEnding } from "../run-outcome.js";
import type { RunRequest } from "../run-request.js";
import { runTrailers } from "./run-trailers.js";

/** What {@link verifyResult} makes of the coder's result: whether anything is published, and what. */
export type Verdict =
  { kind: "answer" } | { kind: "keep-local" } | { kind: "publish"; commit: "made" | "uncommitted" | "checks-failing" };

/** Phase 3 (pure): an answer, a result kept back (failed, or checks red where green is required), or one to publish. */
export function verifyResult(req: RunRequest, result: CoderResult): Verdict {
  if (req.verb === "ask" || req.verb === "plan") return { kind: "answer" };
  // Green checks required: a change none of the repository's checks could judge is not green (docs/checks.md).
  if (result.outcome === "changed" && req.settings.requireGreenChecks && uncheckedReason(result) !== null)
    return { kind: "keep-local" };
  // A change the coder did not commit (commits off) is committed here, with the plain-commit policy.
  if (result.outcome === "changed") return { kind: "publish", commit: result.commit ? "made" : "uncommitted" };
  // Checks failed but the repo does not require green checks: commit what we have and say so.
  if (result.outcome === "checks-failed" && !req.settings.requireGreenChecks && result.editedFiles.length > 0)
    return { kind: "publish", commit: "checks-failing" };
  return { kind: "keep-local" };
}

/** Phase 4: commit if needed, then push to the PR (never forced), open the issue's PR, or hand a fork a patch. */
export async function publishResult(
  req: RunRequest,
  deps: RunJobDeps,
  prepared: PreparedCheckout,
  result: CoderResult,
  commit: "made" | "uncommitted" | "checks-failing",
  stage: Stage,
  hooks: {
    whilePublishing?: () => void;
    keep?: (work: CheckoutWork) => void;
    /** The coder's commit, sent to GitHub before any local commit (see commit-ahead); used for `made` only. */
    ahead?: SentAhead | null;
  } = {},
): Promise<RunEnding> {
  const { whilePublishing, keep } = hooks;
  const ahead = commit === "made" ? hooks.ahead : null;
  const { target } = req;
  const { checkout, workBranch, token } = prepared;
  const sha =
    commit === "made" && result.outcome === "changed" && result.commit
      ? result.commit.sha
      : await deps.git.commitPaths({
          dir: checkout,
          paths: "editedFiles" in result ? result.editedFiles.map((f) => f.path) : [],
          ...checksFailingCommit(req.message, req.requester.login),
          trailers: runTrailers(req.jobId, req.requester),
        });
  if (target.kind !== "issue" && target.isFork) {
    // A fork's branch only through the API, when its author allows maintainer edits; otherwise a patch.
    return publishToFork({ req, target, deps, dir: checkout, sha, base: baseOf(prepared), result });
  }
  stage("pushing");
  // Made (and signed) by GitHub's API where it can; the published sha is the one GitHub has.
  const published = await publishCommit({
    req,
    deps,
    dir: checkout,
    sha,
    branch: workBranch,
    token,
    newBranch: target.kind === "issue",
    ...(whilePublishing ? { whileWaiting: whilePublishing } : {}),
    ...(keep ? { keep } : {}),
    ...(ahead ? { ahead } : {}),
  });
  const note = signingNote(published);
  const made = published.via === "api" ? published.oid : sha;
  if (target.kind !== "issue")
    return {
      kind: "pushed",
      result,
      sha: made,
      url: deps.github.commitUrl(made),
      ...(note ? { signing: note } : {}),
    };
  const pr = await deps.github.openPullRequest({
    branch: workBranch,
    base: req.defaultBranch,
    draft: req.settings.draft,
    issue: { number: target.number, title: target.title },
    requester: req.requester,
    result,
  });
  return {
    kind: "pull-request",
    result,
    sha: made,
    pr,
    branch: workBranch,
    ...(note ? { signing: note } : {}),
  };
}
