import type { RunJobData } from "../run/run-job-data.js";
import type { JobKind } from "../jobs/job.js";
import type { RunTrigger } from "../metrics/app-metrics.js";

/** What started a run, for `aider_bot_runs_total{trigger}` (pure): a schedule, the CI autofix, a review comment, a command comment or a label. */
export function runTrigger(kind: JobKind | undefined, ctx: RunJobData): RunTrigger {
  if (kind === "schedule") return "schedule";
  const mode = ctx.req.context?.mode;
  if (mode?.kind === "fix-ci" && mode.autofix) return "ci";
  if (ctx.req.target.kind === "review-comment") return "review";
  return ctx.req.triggerCommentId !== undefined ? "comment" : "label";
}
