import { parseCommand, type AnyCommand } from "../commands/parse-command.js";
import type { CommandEvent, EventThread } from "../edge/bot-event.js";
import { approvalTicked } from "../report/plan-comment.js";

// What one event asks, read from the typed event (pure): a command and the facts to carry it out, which decideCommand
// authorises and chooses an action for.

export interface EventFacts {
  owner: string;
  repo: string;
  number: number;
  isPullRequest: boolean;
  sender: { login: string; id?: number; type: string; appId?: number };
  installationId: number;
  cloneUrl: string;
  /** The repository's web address as the event gives it (`html_url`): links are built from it, never guessed. */
  webUrl: string;
  defaultBranch: string;
  /** The repository's main language as GitHub detects it, when the event names one. */
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

export type EventRequest =
  { kind: "ignore"; reason: string } | { kind: "command"; command: AnyCommand; facts: EventFacts };

type Trigger = { command: string; label: string };

/**
 * The command an event carries and the facts to run it, or why it asks nothing. The command word and trigger label
 * come from the repository's config.
 */
export function readRequest(event: CommandEvent, trigger: Trigger): EventRequest {
  switch (event.kind) {
    case "comment":
      return commentCommand(event, trigger);
    case "comment-edit":
      return planApproval(event);
    case "review-comment":
      return reviewCommand(event, trigger);
    case "issue-label":
      return labelRun(event, trigger);
  }
}

type BaseFacts = Omit<EventFacts, "number" | "isPullRequest" | "title" | "body" | "reactTo">;

/** What every event tells of its repository and sender. */
function baseFacts(event: CommandEvent): BaseFacts {
  const { repository: repo, sender } = event;
  // Bots are told apart by the App that acted: a comment or issue made by an App names it.
  const appId = "comment" in event ? event.comment.appId : event.thread.appId;
  return {
    owner: repo.owner,
    repo: repo.name,
    installationId: event.installationId,
    cloneUrl: repo.cloneUrl,
    webUrl: repo.webUrl,
    defaultBranch: repo.defaultBranch,
    ...(repo.language ? { language: repo.language } : {}),
    sender: { login: sender.login, id: sender.id, type: sender.type, ...(appId !== undefined ? { appId } : {}) },
  };
}

/** The facts of the issue or pull request an event is about. */
function threadFacts(thread: EventThread): Pick<EventFacts, "number" | "isPullRequest" | "title" | "body"> {
  return { number: thread.number, isPullRequest: thread.isPullRequest, title: thread.title, body: thread.body };
}

/** `issue_comment.created`: a command in a comment on an issue or pull request. */
function commentCommand(event: Extract<CommandEvent, { kind: "comment" }>, trigger: Trigger): EventRequest {
  const command = parseCommand(event.comment.body, trigger.command, { contextVerbs: true });
  if (!command) return { kind: "ignore", reason: "no command" };
  const reactTo = { kind: "issue-comment" as const, id: event.comment.id };
  return { kind: "command", command, facts: { ...baseFacts(event), ...threadFacts(event.thread), reactTo } };
}

/**
 * `issue_comment.edited`: ticking a plan's approve box is an edit of the bot's comment by the person who ticked it
 * (the sender). The App named on the comment is the bot itself, so the sender is judged on its own.
 */
function planApproval(event: Extract<CommandEvent, { kind: "comment-edit" }>): EventRequest {
  const c = event.comment;
  if (!approvalTicked(event.before, c.body)) return { kind: "ignore", reason: "not an approval" };
  const base = baseFacts(event);
  return {
    kind: "command",
    command: { verb: "approve", text: "", flags: { files: [] } },
    facts: {
      ...base,
      sender: { login: base.sender.login, id: base.sender.id, type: base.sender.type },
      ...threadFacts(event.thread),
      reactTo: { kind: "issue-comment", id: c.id },
      planComment: { id: c.id, author: c.author, ...(c.appId ? { appId: c.appId } : {}) },
    },
  };
}

/** `pull_request_review_comment.created`: a command on a line of a pull request's diff. */
function reviewCommand(event: Extract<CommandEvent, { kind: "review-comment" }>, trigger: Trigger): EventRequest {
  const command = parseCommand(event.comment.body, trigger.command, { contextVerbs: true });
  if (!command) return { kind: "ignore", reason: "no command" };
  const { review, comment } = event;
  return {
    kind: "command",
    command,
    facts: {
      ...baseFacts(event),
      ...threadFacts(event.thread),
      isPullRequest: true,
      reactTo: { kind: "review-comment", id: comment.id },
      review: {
        commentId: comment.id,
        path: review.path,
        ...(review.line !== undefined ? { line: review.line } : {}),
        diffHunk: review.diffHunk,
      },
    },
  };
}

/** `issues.labeled` / `issues.opened`: an issue carrying the trigger label asks for a run. */
function labelRun(event: Extract<CommandEvent, { kind: "issue-label" }>, trigger: Trigger): EventRequest {
  const { thread } = event;
  const hit = event.action === "labeled" ? event.label === trigger.label : thread.labels.includes(trigger.label);
  if (!hit) return { kind: "ignore", reason: `not labelled ${trigger.label}` };
  if (thread.isPullRequest) return { kind: "ignore", reason: "label on a pull request" };
  const base = baseFacts(event);
  return {
    kind: "command",
    // The title and body are untrusted (anyone may open an issue): they reach the model only as delimited data.
    command: { verb: "run", text: `Resolve issue #${thread.number}, described below.`, flags: { files: [] } },
    facts: {
      ...base,
      ...threadFacts(thread),
      isPullRequest: false,
      reactTo: { kind: "issue" },
      dedupeId: `label:${base.owner}/${base.repo}#${thread.number}@${thread.updatedAt}`,
    },
  };
}
