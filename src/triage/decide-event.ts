import { parseCommand, type AnyCommand } from "../commands/parse-command.js";
import { approvalTicked } from "../report/plan-comment.js";
import type { DecidableEvent } from "./webhook-event.js";

// The facts and the command of one webhook, read from its payload (pure): what decideAction authorises and acts on.

export interface EventFacts {
  owner: string;
  repo: string;
  number: number;
  isPullRequest: boolean;
  sender: { login: string; id?: number; type: string; appId?: number };
  installationId: number;
  cloneUrl: string;
  /** The repository's web address as the payload gives it (`html_url`): links are built from it, never guessed. */
  webUrl: string;
  defaultBranch: string;
  /** The repository's main language as GitHub detects it (`language`), when the payload names one. */
  language?: string;
  title: string;
  body: string;
  /** Where the 👀 goes. */
  reactTo: { kind: "issue-comment" | "review-comment"; id: number } | { kind: "issue" };
  review?: { commentId: number; path: string; line?: number; diffHunk: string };
  /**
   * Dedupe id for label runs: GitHub sends both `issues.opened` and `issues.labeled` for an issue created with the
   * label; both carry the same `updated_at`, so the second is recognised and ignored (a later re-label runs again).
   */
  dedupeId?: string;
  /** The plan comment whose approve box this edit ticked (its author is checked to be the bot). */
  planComment?: { id: number; author: string; appId?: number };
}

export type EventDecision =
  { kind: "ignore"; reason: string } | { kind: "command"; command: AnyCommand; facts: EventFacts };

/** The fields of a webhook's repository, sender and installation that every event carries. */
interface PayloadBase {
  action?: string;
  repository?: {
    name?: string;
    owner?: { login?: string };
    clone_url?: string;
    html_url?: string;
    default_branch?: string;
    language?: string | null;
  };
  installation?: { id?: number };
  sender?: { login?: string; id?: number; type?: string };
  comment?: CommentPayload;
  issue?: IssuePayload;
}

/** An issue (or the issue side of a pull request) as the events carry it. */
interface IssuePayload {
  number: number;
  title?: string;
  body?: string | null;
  pull_request?: unknown;
  labels?: ({ name?: string } | string)[];
  updated_at?: string;
  created_at?: string;
  performed_via_github_app?: { id?: number } | null;
}

/** A comment (issue or review) as the events carry it. */
interface CommentPayload {
  id: number;
  body?: string;
  user?: { login?: string } | null;
  performed_via_github_app?: { id?: number } | null;
  path?: string;
  line?: number | null;
  original_line?: number | null;
  diff_hunk?: string;
}

type BaseFacts = Omit<EventFacts, "number" | "isPullRequest" | "title" | "body" | "reactTo">;
type Trigger = { command: string; label: string };

/**
 * The facts and the command of a webhook (pure): a command and the facts to run it, or why it is ignored. The command
 * word and trigger label come from the repository's config.
 */
export function decideEvent(event: DecidableEvent, trigger: Trigger): EventDecision {
  const base = baseFacts(event.payload);
  if (!base) return { kind: "ignore", reason: "no repository in payload" };
  switch (event.name) {
    case "issue_comment":
      return event.payload.action === "created"
        ? issueComment(event.payload, base, trigger)
        : planApproval(event.payload, base);
    case "pull_request_review_comment":
      return reviewComment(event.payload, base, trigger);
    case "issues":
      return labelRun(event.payload, base, trigger);
  }
}

/** What every event tells of its repository and sender; null without a repository. */
function baseFacts(payload: PayloadBase | null | undefined): BaseFacts | null {
  const repo = payload?.repository;
  if (!payload || !repo?.owner?.login || !repo?.name) return null;
  return {
    owner: repo.owner.login,
    repo: repo.name,
    installationId: Number(payload.installation?.id ?? 0),
    cloneUrl: String(repo.clone_url ?? ""),
    webUrl: String(repo.html_url ?? ""),
    defaultBranch: String(repo.default_branch ?? "main"),
    ...(typeof repo.language === "string" && repo.language ? { language: repo.language } : {}),
    sender: {
      login: String(payload.sender?.login ?? ""),
      id: payload.sender?.id,
      type: String(payload.sender?.type ?? "User"),
      // Bots are told apart by the App that acted: a comment or issue made by an App names it here.
      appId: (payload.comment ?? payload.issue)?.performed_via_github_app?.id ?? undefined,
    },
  };
}

/** The facts of the issue or pull request an event is about. */
function issueFacts(issue: IssuePayload): Pick<EventFacts, "number" | "isPullRequest" | "title" | "body"> {
  return {
    number: issue.number,
    isPullRequest: Boolean(issue.pull_request),
    title: String(issue.title ?? ""),
    body: String(issue.body ?? ""),
  };
}

/** `issue_comment.created`: a command in a comment on an issue or pull request. */
function issueComment(
  payload: { comment: CommentPayload; issue: IssuePayload },
  base: BaseFacts,
  trigger: Trigger,
): EventDecision {
  const command = parseCommand(String(payload.comment?.body ?? ""), trigger.command, { contextVerbs: true });
  if (!command) return { kind: "ignore", reason: "no command" };
  return {
    kind: "command",
    command,
    facts: { ...base, ...issueFacts(payload.issue), reactTo: { kind: "issue-comment", id: payload.comment.id } },
  };
}

/**
 * `issue_comment.edited`: ticking a plan's approve box is an edit of the bot's comment by the person who
 * ticked it (the sender). The App named on the comment is the bot itself, so the sender is judged on its own.
 */
function planApproval(
  payload: { comment: CommentPayload; issue: IssuePayload; changes?: { body?: { from?: unknown } } },
  base: BaseFacts,
): EventDecision {
  const c = payload.comment;
  const before = payload.changes?.body?.from;
  if (typeof before !== "string" || !approvalTicked(before, String(c?.body ?? "")))
    return { kind: "ignore", reason: "not an approval" };
  const appId = c.performed_via_github_app?.id;
  return {
    kind: "command",
    command: { verb: "approve", text: "", flags: { files: [] } },
    facts: {
      ...base,
      sender: { ...base.sender, appId: undefined },
      ...issueFacts(payload.issue),
      reactTo: { kind: "issue-comment", id: c.id },
      planComment: { id: c.id, author: String(c.user?.login ?? ""), ...(appId ? { appId } : {}) },
    },
  };
}

/** `pull_request_review_comment.created`: a command on a line of a pull request's diff. */
function reviewComment(
  payload: { comment: CommentPayload; pull_request: IssuePayload },
  base: BaseFacts,
  trigger: Trigger,
): EventDecision {
  const command = parseCommand(String(payload.comment?.body ?? ""), trigger.command, { contextVerbs: true });
  if (!command) return { kind: "ignore", reason: "no command" };
  const c = payload.comment;
  return {
    kind: "command",
    command,
    facts: {
      ...base,
      ...issueFacts(payload.pull_request),
      isPullRequest: true,
      reactTo: { kind: "review-comment", id: c.id },
      review: {
        commentId: c.id,
        path: String(c.path),
        line: c.line ?? c.original_line ?? undefined,
        diffHunk: String(c.diff_hunk ?? ""),
      },
    },
  };
}

/** `issues.labeled` / `issues.opened`: an issue carrying the trigger label asks for a run. */
function labelRun(
  payload: { action: string; issue: IssuePayload; label?: { name?: string } },
  base: BaseFacts,
  trigger: Trigger,
): EventDecision {
  const issue = payload.issue;
  const labels = (issue?.labels ?? []).map((l) => String(typeof l === "string" ? l : (l?.name ?? l)));
  const hit = payload.action === "labeled" ? payload.label?.name === trigger.label : labels.includes(trigger.label);
  if (!hit) return { kind: "ignore", reason: `not labelled ${trigger.label}` };
  if (issue.pull_request) return { kind: "ignore", reason: "label on a pull request" };
  return {
    kind: "command",
    // The title and body are untrusted (anyone may open an issue): they reach the model only as delimited data.
    command: { verb: "run", text: `Resolve issue #${issue.number}, described below.`, flags: { files: [] } },
    facts: {
      ...base,
      ...issueFacts(issue),
      isPullRequest: false,
      reactTo: { kind: "issue" },
      dedupeId: `label:${base.owner}/${base.repo}#${issue.number}@${String(issue.updated_at ?? issue.created_at ?? "")}`,
    },
  };
}
