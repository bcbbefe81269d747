import type { Probot } from "probot";
import type { BotEvent } from "../edge/bot-event.js";
import { parseWebhook } from "../edge/parse-webhook.js";
import type { AppServices, HandleResult } from "./event-context.js";
import { triageEvent } from "./triage-event.js";

/** The webhook events that can carry a request; the receiver drops every other event before recording anything. */
export const HANDLED_EVENTS = [
  "issue_comment.created",
  // A plan's approve box ticked (only edits of comments holding a plan are recorded, see isTriaged).
  "issue_comment.edited",
  "pull_request_review_comment.created",
  "issues.labeled",
  "issues.opened",
  // ci.autofix (ignored unless a repository opts in).
  "check_suite.completed",
] as const;

/** Whether the receiver should record an event for triage. */
export function isTriaged(event: BotEvent): boolean {
  switch (event.kind) {
    case "comment":
    case "review-comment":
    case "issue-label":
    case "check-suite":
      return true;
    case "comment-edit":
      // Every comment edit of every installed repository arrives: only an edit of a plan comment can mean anything.
      return event.comment.body.includes("<!-- aider-bot:plan:");
    default:
      return false;
  }
}

/**
 * Probot's one registration of triage: a triage job hands its recorded webhook to `probot.receive`, and Probot calls
 * this handler with an installation Octokit (throttled per installation) and `context.config("aider.yml")`
 * (`.github/aider.yml` on the default branch, with `_extends`). The payload is parsed here, by the edge, and never
 * read again; a malformed one is refused with its reason in the log. `onHandled` sees every result (logs, tests).
 */
export function registerHandlers(
  app: Probot,
  services: AppServices,
  onHandled?: (result: HandleResult, delivery: string) => void,
): void {
  app.on([...HANDLED_EVENTS], async (context) => {
    const parsed = parseWebhook(context.name, context.payload, context.id);
    const result: HandleResult = parsed.ok
      ? await triageEvent(
          parsed.event,
          { api: context.octokit, loadConfig: () => context.config("aider.yml"), log: context.log },
          services,
        )
      : { kind: "ignored", reason: parsed.reason };
    if (!parsed.ok && parsed.refused)
      context.log.warn({ delivery: context.id, reason: parsed.reason }, "event refused");
    context.log.debug(
      { result: result.kind === "enqueued" ? { kind: result.kind, jobId: result.jobId } : result },
      "webhook triaged",
    );
    onHandled?.(result, context.id);
  });
}
