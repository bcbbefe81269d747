import type {
  IssueCommentCreatedEvent,
  IssueCommentEditedEvent,
  IssuesLabeledEvent,
  IssuesOpenedEvent,
  PullRequestReviewCommentCreatedEvent,
} from "@octokit/webhooks-types";

/** A webhook the triage decides on, typed per event by `@octokit/webhooks-types`. */
export type DecidableEvent =
  | { name: "issue_comment"; payload: IssueCommentCreatedEvent | IssueCommentEditedEvent }
  | { name: "pull_request_review_comment"; payload: PullRequestReviewCommentCreatedEvent }
  | { name: "issues"; payload: IssuesLabeledEvent | IssuesOpenedEvent };

/**
 * A verified webhook as a {@link DecidableEvent}, once the fields the decision dereferences are checked (the
 * repository, the action, the issue / pull request and comment it names); otherwise why it is ignored.
 */
export function readWebhookEvent(
  name: string,
  payload: unknown,
): { ok: true; event: DecidableEvent } | { ok: false; reason: string } {
  if (!hasRepository(payload)) return { ok: false, reason: "no repository in payload" };
  const action = typeof payload.action === "string" ? payload.action : undefined;
  if (name === "issue_comment" && (action === "created" || action === "edited") && isIssueComment(payload))
    return { ok: true, event: { name, payload } };
  if (name === "pull_request_review_comment" && action === "created" && isReviewComment(payload))
    return { ok: true, event: { name, payload } };
  if (name === "issues" && (action === "labeled" || action === "opened") && isIssueEvent(payload))
    return { ok: true, event: { name, payload } };
  return { ok: false, reason: `event ${name}.${action} is not handled` };
}

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null;
}

function hasRepository(
  payload: unknown,
): payload is Record_ & { repository: { owner: { login: string }; name: string } } {
  if (!isRecord(payload) || !isRecord(payload.repository)) return false;
  const { owner, name } = payload.repository;
  return (
    isRecord(owner) && typeof owner.login === "string" && owner.login !== "" && typeof name === "string" && name !== ""
  );
}

const hasNumber = (value: unknown, key: "id" | "number"): boolean => isRecord(value) && typeof value[key] === "number";

function isIssueComment(payload: Record_): payload is Record_ & (IssueCommentCreatedEvent | IssueCommentEditedEvent) {
  return hasNumber(payload.issue, "number") && hasNumber(payload.comment, "id");
}

function isReviewComment(payload: Record_): payload is Record_ & PullRequestReviewCommentCreatedEvent {
  return hasNumber(payload.pull_request, "number") && hasNumber(payload.comment, "id");
}

function isIssueEvent(payload: Record_): payload is Record_ & (IssuesLabeledEvent | IssuesOpenedEvent) {
  return hasNumber(payload.issue, "number");
}
