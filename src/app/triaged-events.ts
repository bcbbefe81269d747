import type { BotEvent } from "../edge/bot-event.js";

/**
 * Whether the receiver records an event for triage: a comment, a review comment, an issue opened or labelled, a
 * completed check suite (ci.autofix, ignored unless a repository opts in), and an edit of a plan comment (its
 * approve box).
 */
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
