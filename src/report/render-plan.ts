import type { RunOutcome } from "../run/run-outcome.js";
import type { RunRequest } from "../run/run-request.js";
import { runMarker } from "../github/markers.js";
import { PLAN_TEXT_LIMIT, renderPlanComment } from "./plan-comment.js";

/**
 * The status comment a `plan` run leaves: the plan, open for approval, with its record (id, the commit
 * it was made on, the plan itself) in its hidden marker and the run marker kept, so the comment is found again.
 */
export function renderPlanOutcome(
  outcome: Extract<RunOutcome, { kind: "planned" }>,
  req: RunRequest,
  command: string,
): string {
  const text =
    outcome.plan.length <= PLAN_TEXT_LIMIT
      ? outcome.plan.trim()
      : `${outcome.plan.slice(0, PLAN_TEXT_LIMIT).trim()}\n\n… (the plan was cut at ${PLAN_TEXT_LIMIT} characters)`;
  return renderPlanComment(
    {
      id: req.jobId,
      sha: outcome.sha,
      state: "active",
      text,
      requester: req.requester.login,
      model: req.settings.model,
      request: req.message.slice(0, 500),
      done: [],
    },
    { command, head: runMarker(req.jobId) },
  );
}
