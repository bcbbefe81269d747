import type { Logger } from "pino";
import type { RunJobDeps } from "../run-job-deps.js";
import type { RunOutcome } from "../run-outcome.js";
import type { RunRequest } from "../run-request.js";

/**
 * Phase 5: the outcome on GitHub — final status (and review-thread reply), 🚀 or 😕, the Check Run completed. The
 * writes are independent of one another and go out together; each failure is logged, none stops the others.
 */
export async function reportOutcome(
  req: RunRequest,
  deps: RunJobDeps,
  outcome: RunOutcome,
  checkRunId: number | null,
  writeFinal: (body: string) => Promise<void>,
  log: Logger,
  transcript: string | null,
): Promise<void> {
  const ok =
    outcome.kind === "pushed" ||
    outcome.kind === "pull-request" ||
    outcome.kind === "answered" ||
    outcome.kind === "planned" ||
    outcome.kind === "reverted" ||
    outcome.kind === "nothing-to-do";
  const body =
    outcome.kind === "planned" && deps.render.plan ? deps.render.plan(outcome, req) : deps.render.final(outcome, req);
  // Stopped by a shutdown, the job goes back in the queue: its re-run reacts and completes the Check Run.
  if (outcome.kind === "cancelled" && outcome.reason === "shutdown") return await writeFinal(body);
  const target = req.target;
  const { supersedeOlderPlans } = deps.github;
  await Promise.all([
    // A new plan supersedes the thread's older ones once it is posted.
    outcome.kind === "planned" && supersedeOlderPlans
      ? writeFinal(body).then(() =>
          supersedeOlderPlans().catch((error: unknown) =>
            log.warn({ err: error }, "could not mark older plans superseded"),
          ),
        )
      : writeFinal(body),
    target.kind === "review-comment"
      ? deps.github
          .replyToReviewComment(target.number, target.commentId, body)
          .catch((error: unknown) => log.warn({ err: error }, "review reply failed"))
      : null,
    deps.github
      .react(ok ? "rocket" : "confused")
      .catch((error: unknown) => log.warn({ err: error }, "final reaction failed")),
    checkRunId === null
      ? null
      : deps.github
          .finishCheckRun(checkRunId, {
            conclusion: ok && !checksStillFail(outcome) ? "success" : "failure",
            title: checkTitle(outcome),
            summary: body,
            ...(transcript ? { text: transcript } : {}),
          })
          .catch((error: unknown) => log.warn({ err: error }, "check run update failed")),
  ]);
}

function checksStillFail(outcome: RunOutcome): boolean {
  return "result" in outcome && outcome.result?.outcome === "checks-failed";
}

function setupFailed(outcome: RunOutcome): boolean {
  return "result" in outcome && outcome.result?.outcome === "checks-failed" && outcome.result.report.kind === "setup";
}

function checkTitle(outcome: RunOutcome): string {
  switch (outcome.kind) {
    case "pushed":
    case "pull-request":
      if (setupFailed(outcome)) return "Changes pushed unchecked; a setup command failed";
      return checksStillFail(outcome) ? "Changes pushed; checks still fail" : "Changes pushed";
    case "patch":
      return "Patch posted (fork)";
    case "answered":
      return "Answered";
    case "planned":
      return "Plan posted for approval";
    case "reverted":
      return "Reverted";
    case "nothing-to-do":
      return "Nothing to do";
    case "cancelled":
      return "Cancelled";
    case "not-pushed":
      return setupFailed(outcome)
        ? "No changes pushed (a setup command failed)"
        : `No changes pushed (${outcome.result.outcome})`;
    default:
      return "Failed";
  }
}
