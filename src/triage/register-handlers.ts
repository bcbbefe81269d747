import type { Probot } from "probot";
import { payloadField } from "../github/payload-field.js";
import type { AppServices, HandleResult } from "./event-context.js";
import { triageEvent } from "./triage-event.js";

/** The webhook events that can carry a request; the receiver drops every other event before recording anything. */
export const HANDLED_EVENTS = [
  "issue_comment.created",
  // A plan's approve box ticked (only edits of comments holding a plan are recorded, see isHandledEvent).
  "issue_comment.edited",
  "pull_request_review_comment.created",
  "issues.labeled",
  "issues.opened",
  // ci.autofix (ignored unless a repository opts in).
  "check_suite.completed",
] as const;

/** Whether the receiver should record a delivery of this event for triage. */
export function isHandledEvent(name: string, payload: unknown): boolean {
  const action = payloadField(payload, "action");
  // Every comment edit of every installed repository arrives: only an edit of a plan comment can mean anything.
  if (name === "issue_comment" && action === "edited") return isPlanEdit(payload);
  const key = `${name}.${typeof action === "string" ? action : ""}`;
  return HANDLED_EVENTS.some((handled) => handled === key);
}

/**
 * Wire triage into Probot: a triage job hands its recorded event to `probot.receive`, and Probot calls this handler
 * with an installation Octokit (throttled per installation) and `context.config("aider.yml")` (`.github/aider.yml`
 * on the default branch, with `_extends`). `onHandled` sees every result (logs, tests).
 */
export function registerHandlers(
  app: Probot,
  services: AppServices,
  onHandled?: (result: HandleResult, delivery: string) => void,
): void {
  app.on([...HANDLED_EVENTS], async (context) => {
    const result = await triageEvent(
      {
        name: context.name,
        id: context.id,
        payload: context.payload,
        api: context.octokit,
        loadConfig: () => context.config("aider.yml"),
        log: context.log,
      },
      services,
    );
    context.log.debug(
      { result: result.kind === "enqueued" ? { kind: result.kind, jobId: result.jobId } : result },
      "webhook triaged",
    );
    onHandled?.(result, context.id);
  });
}

/** Whether an `issue_comment.edited` payload edits a comment holding a plan (the approve box lives there). */
function isPlanEdit(payload: unknown): boolean {
  const body = payloadField(payload, "comment", "body");
  return (
    typeof body === "string" &&
    body.includes("<!-- aider-bot:plan:") &&
    typeof payloadField(payload, "changes", "body", "from") === "string"
  );
}
