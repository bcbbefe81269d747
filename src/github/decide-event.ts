import { parseCommand, type AnyCommand } from "../commands/parse-command.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- webhook payloads are validated field by field here */

export interface EventFacts {
  owner: string;
  repo: string;
  number: number;
  isPullRequest: boolean;
  sender: { login: string; id?: number; type: string; appId?: number };
  installationId: number;
  cloneUrl: string;
  defaultBranch: string;
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
}

export type EventDecision = { kind: "ignore"; reason: string } | { kind: "command"; command: AnyCommand; facts: EventFacts };

/**
 * What a webhook asks of us (pure): a command and the facts to run it, or why it is ignored. The command word and
 * trigger label come from the repository's config.
 */
export function decideEvent(name: string, payload: any, trigger: { command: string; label: string }): EventDecision {
  const repo = payload?.repository;
  if (!repo?.owner?.login || !repo?.name) return { kind: "ignore", reason: "no repository in payload" };
  const base = {
    owner: repo.owner.login as string,
    repo: repo.name as string,
    installationId: Number(payload.installation?.id ?? 0),
    cloneUrl: String(repo.clone_url ?? ""),
    defaultBranch: String(repo.default_branch ?? "main"),
    sender: {
      login: String(payload.sender?.login ?? ""),
      id: payload.sender?.id as number | undefined,
      type: String(payload.sender?.type ?? "User"),
      // Bots are told apart by the App that acted: a comment or issue made by an App names it here.
      appId: ((payload.comment ?? payload.issue)?.performed_via_github_app?.id as number | undefined) ?? undefined,
    },
  };
  if (name === "issue_comment" && payload.action === "created") {
    // Issue #14 hook: `address-reviews` and `fix-ci` are commands (handlers.ts gives them their mode).
    const command = parseCommand(String(payload.comment?.body ?? ""), trigger.command, { contextVerbs: true });
    if (!command) return { kind: "ignore", reason: "no command" };
    const issue = payload.issue;
    return {
      kind: "command",
      command,
      facts: {
        ...base, number: issue.number, isPullRequest: Boolean(issue.pull_request), title: String(issue.title ?? ""), body: String(issue.body ?? ""),
        reactTo: { kind: "issue-comment", id: payload.comment.id },
      },
    };
  }
  if (name === "pull_request_review_comment" && payload.action === "created") {
    // Issue #14 hook: `address-reviews` and `fix-ci` are commands (handlers.ts gives them their mode).
    const command = parseCommand(String(payload.comment?.body ?? ""), trigger.command, { contextVerbs: true });
    if (!command) return { kind: "ignore", reason: "no command" };
    const c = payload.comment;
    const pr = payload.pull_request;
    return {
      kind: "command",
      command,
      facts: {
        ...base, number: pr.number, isPullRequest: true, title: String(pr.title ?? ""), body: String(pr.body ?? ""),
        reactTo: { kind: "review-comment", id: c.id },
        review: { commentId: c.id, path: String(c.path), line: (c.line ?? c.original_line ?? undefined) as number | undefined, diffHunk: String(c.diff_hunk ?? "") },
      },
    };
  }
  if (name === "issues" && (payload.action === "labeled" || payload.action === "opened")) {
    const issue = payload.issue;
    const labels: string[] = (issue?.labels ?? []).map((l: any) => String(l?.name ?? l));
    const hit = payload.action === "labeled" ? payload.label?.name === trigger.label : labels.includes(trigger.label);
    if (!hit) return { kind: "ignore", reason: `not labelled ${trigger.label}` };
    if (issue.pull_request) return { kind: "ignore", reason: "label on a pull request" };
    return {
      kind: "command",
      // The title and body are untrusted (anyone may open an issue): they reach the model only as delimited data.
      command: { verb: "run", text: `Resolve issue #${issue.number}, described below.`, flags: { files: [] } },
      facts: {
        ...base, number: issue.number, isPullRequest: false, title: String(issue.title ?? ""), body: String(issue.body ?? ""), reactTo: { kind: "issue" },
        dedupeId: `label:${base.owner}/${base.repo}#${issue.number}@${String(issue.updated_at ?? issue.created_at ?? "")}`,
      },
    };
  }
  return { kind: "ignore", reason: `event ${name}.${payload?.action} is not handled` };
}
