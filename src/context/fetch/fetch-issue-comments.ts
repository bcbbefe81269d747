import type { IssueComment } from "../pr-data.js";
import { readPriorRun } from "../read-prior-run.js";
import type { PriorRun } from "../pr-data.js";
import type { RepoGitHub } from "../../github/repo-github.js";

/** The conversation of an issue or PR (oldest first, as GitHub lists it), up to 1,000 comments. */
export async function fetchIssueComments(
  github: RepoGitHub,
  issue: number,
): Promise<{ comments: IssueComment[]; truncated: boolean }> {
  const { items, truncated } = await github.listIssueComments(issue, 10);
  return {
    truncated,
    comments: items.map((c) => ({
      id: Number(c.id),
      author: c.user?.login ?? "ghost",
      body: c.body ?? "",
      createdAt: c.created_at,
      isBot: c.user?.type === "Bot",
    })),
  };
}

/**
 * Earlier bot runs on this issue or PR, read from the bot's own status comments (follow-up memory). Only comments
 * written by the bot count: anyone can paste a marker into their own comment.
 */
export function priorRunsFrom(
  comments: readonly IssueComment[],
  botLogin: string,
  url?: (c: IssueComment) => string,
): PriorRun[] {
  return comments
    .filter((c) => c.author.toLowerCase() === botLogin.toLowerCase())
    .map((c) => readPriorRun({ body: c.body, createdAt: c.createdAt, ...(url ? { url: url(c) } : {}) }))
    .filter((r): r is PriorRun => r !== null);
}
