import type { CoderDeps } from "../../coder/coder-deps.js";
import type { PreparedCheckout } from "../prepare/prepare-checkout.js";
import type { RunJobDeps } from "../run-job-deps.js";
import type { RunRequest } from "../run-request.js";
import { API_COMMIT_MAX_BYTES, planApiCommit } from "./plan-api-commit.js";
import type { SentAhead } from "./publish-commit.js";
import { verifyResult } from "./publish-result.js";

/** A run's commit offered to GitHub's API before any local commit (see {@link createCommitAhead}). */
export interface CommitAhead {
  /** What the coder is given: its commit step offers the commit here (CoderDeps.publishAhead). */
  port: NonNullable<CoderDeps["publishAhead"]>;
  /** The commit offered and sent; null when none was sent (the run publishes as before). */
  sent(): SentAhead | null;
}

/**
 * Publishing without a local commit first. The commit GitHub's API makes (`createCommitOnBranch`, `commit.signing:
 * api`) is built from the commit's parent, message and files, and the run used to read all three back from its local
 * commit (`git commit`, then `diff-tree`: 50–80 ms on a 700-file checkout, before the request could leave). Now the
 * coder's commit step reads the commit as git would make it (the work tree's bytes, where git alone decides them:
 * workspace/git-commit-ahead.ts) and offers it here; the request leaves at once, and no local commit is made unless
 * the API fails and git must push instead (`commitLocally`).
 *
 * Sent only for what the run would publish through the API anyway: a `run` on its own repository's branch with API
 * signing, not stopped, and a result `verifyResult` publishes as the commit made (a change `require_green_checks`
 * keeps back is never sent). The answer is taken by the publish step (`publishCommit`'s `ahead`). Null where the
 * run cannot publish so (signing with git, no API, a fork's branch, another verb).
 */
export function createCommitAhead(
  req: RunRequest,
  deps: Pick<RunJobDeps, "github" | "signal" | "logger">,
  prepared: Pick<PreparedCheckout, "workBranch">,
): CommitAhead | null {
  const api = deps.github.apiCommits;
  const { target } = req;
  if (!api || (req.settings.commitSigning ?? "api") !== "api" || req.verb !== "run") return null;
  if (target.kind !== "issue" && target.isFork) return null;
  const branch = prepared.workBranch;
  let sent: SentAhead | null = null;
  return {
    port: {
      maxBytes: API_COMMIT_MAX_BYTES,
      offer(changes, result, commitLocally) {
        if (sent || deps.signal.aborted) return false;
        const verdict = verifyResult(req, result);
        if (verdict.kind !== "publish" || verdict.commit !== "made") return false;
        const plan = planApiCommit(changes, branch);
        if (plan.kind !== "api") return false;
        const { request } = plan;
        deps.logger.debug({ files: changes.entries.length }, "commit sent to GitHub's API, no local commit first");
        const made = (async () => {
          // An issue's branch does not exist yet: it is created at the parent first, as publishCommit does.
          if (target.kind === "issue") await api.createBranch(branch, request.expectedHeadOid);
          return api.create(request);
        })();
        // Awaited by the publish step; a run that ends before it must not leave an unhandled rejection.
        made.catch(() => undefined);
        sent = { made, commitLocally };
        return true;
      },
    },
    sent: () => sent,
  };
}
