import type { CheckSuiteCompletedEvent } from "@octokit/webhooks-types";
import type { BotEvent, EventCheckSuite } from "./bot-event.js";
import { MalformedPayload, readPayload, type PayloadReader } from "./payload-reader.js";
import { readComment, readRepository, readSender, readThread } from "./read-event-parts.js";

/** The webhooks some action of which the bot handles; any other is dropped unread. */
const WEBHOOKS = new Set(["issue_comment", "pull_request_review_comment", "issues", "check_suite", "push"]);

/**
 * What the edge made of an event: the typed event, or why there is none — `refused` for a payload that lacks what
 * its kind must carry (logged with the reason: GitHub never sends one), otherwise an event the bot does not handle.
 */
export type ParsedEvent = { ok: true; event: BotEvent } | { ok: false; refused: boolean; reason: string };

/** Where the event came from: a webhook to the App carries its installation; an Action's event file has none. */
export type EventOrigin = "app" | "action";

/**
 * The one parse of an event, where it enters: `name` is the webhook's event name (X-GitHub-Event or
 * GITHUB_EVENT_NAME), `delivery` its id (X-GitHub-Delivery, or the Action's run key).
 */
export function parseWebhook(
  name: string,
  payload: unknown,
  delivery: string,
  origin: EventOrigin = "app",
): ParsedEvent {
  const p = readPayload(payload);
  try {
    if (typeof payload !== "object" || payload === null || Array.isArray(payload))
      throw new MalformedPayload("the payload is not a JSON object");
    if (!WEBHOOKS.has(name)) return { ok: false, refused: false, reason: `${name} is not handled` };
    const key = name === "push" ? name : `${name}.${p.string("action")}`;
    const event = parseKnown(key, p, delivery, origin);
    return event ? { ok: true, event } : { ok: false, refused: false, reason: `${key} is not handled` };
  } catch (error) {
    if (!(error instanceof MalformedPayload)) throw error;
    return { ok: false, refused: true, reason: `${name} payload refused: ${error.message}` };
  }
}

/** The event of a handled `name.action`, null for any other. */
function parseKnown(key: string, p: PayloadReader, delivery: string, origin: EventOrigin): BotEvent | null {
  switch (key) {
    case "issue_comment.created":
      return { kind: "comment", ...base(p, delivery, origin), thread: readThread(p, "issue"), comment: readComment(p) };
    case "issue_comment.edited":
      // Only an edit that changed the body can tick a box; GitHub names the old body in `changes.body.from`.
      if (!p.has("changes.body")) return null;
      return {
        kind: "comment-edit",
        ...base(p, delivery, origin),
        thread: readThread(p, "issue"),
        comment: readComment(p),
        before: p.string("changes.body.from"),
      };
    case "pull_request_review_comment.created":
      return {
        kind: "review-comment",
        ...base(p, delivery, origin),
        thread: readThread(p, "pull_request"),
        comment: readComment(p),
        review: {
          path: p.text("comment.path"),
          ...lineOf(p),
          diffHunk: p.string("comment.diff_hunk"),
        },
      };
    case "issues.opened":
    case "issues.labeled": {
      const label = key === "issues.labeled" ? p.string("label.name") : undefined;
      return {
        kind: "issue-label",
        action: key === "issues.opened" ? "opened" : "labeled",
        ...base(p, delivery, origin),
        thread: readThread(p, "issue"),
        ...(label !== undefined ? { label } : {}),
      };
    }
    case "issues.edited":
      if (!p.has("changes.body")) return null;
      return {
        kind: "issue-edit",
        ...base(p, delivery, origin),
        thread: readThread(p, "issue"),
        before: p.string("changes.body.from"),
      };
    case "check_suite.completed":
      return { kind: "check-suite", ...base(p, delivery, origin), suite: readSuite(p) };
    case "push":
      return { kind: "push", delivery, repository: readRepository(p), ref: p.text("ref") };
    default:
      return null;
  }
}

/** Delivery, installation, repository and sender. */
function base(p: PayloadReader, delivery: string, origin: EventOrigin) {
  // An Action's event file names no installation: the workflow's token belongs to none (see BotEvent).
  const installationId = origin === "app" || p.has("installation") ? p.int("installation.id") : 0;
  return { delivery, installationId, repository: readRepository(p), sender: readSender(p) };
}

/** A review comment's line in the new side of the diff, or (outdated) its original line; none for a file comment. */
function lineOf(p: PayloadReader): { line?: number } {
  const line = p.optionalInt("comment.line") ?? p.optionalInt("comment.original_line");
  return line !== undefined ? { line } : {};
}

/** The suite's result, its App, and the open pull requests of this repository whose head is its commit. */
function readSuite(p: PayloadReader): EventCheckSuite {
  const headSha = p.text("check_suite.head_sha");
  const repoId = p.int("repository.id");
  const slug = p.optionalString("check_suite.app.slug");
  const conclusion = p.optionalString("check_suite.conclusion") ?? null;
  return {
    conclusion: conclusion as CheckSuiteCompletedEvent["check_suite"]["conclusion"],
    headSha,
    appId: p.int("check_suite.app.id"),
    ...(slug ? { appSlug: slug } : {}),
    pullNumbers: p
      .list("check_suite.pull_requests")
      .filter((pr) => pr.string("head.sha") === headSha && pr.int("base.repo.id") === repoId)
      .map((pr) => pr.int("number")),
  };
}
