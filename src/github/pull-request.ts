import { httpStatus, type GitHubApi, type RepoRef } from "./github-api.js";

export interface PullRequestRef {
  number: number;
  url: string;
}

/** The open PR whose head is `branch` of this repository, or null. */
export async function findPullRequestForBranch(api: GitHubApi, args: RepoRef & { branch: string }): Promise<PullRequestRef | null> {
  const res = await api.request("GET /repos/{owner}/{repo}/pulls", { owner: args.owner, repo: args.repo, head: `${args.owner}:${args.branch}`, state: "open", per_page: 1 });
  const pr = (res.data as { number: number; html_url: string }[])[0];
  return pr ? { number: pr.number, url: pr.html_url } : null;
}

/**
 * The body of a PR opened for an issue (pure). `Fixes #n` closes the issue on merge; the run link leads back to the
 * status comment with the details. The summary is the bot's own text, never the issue's.
 */
export function renderPullRequestBody(args: { issueNumber: number; runUrl?: string; requester?: string; summary?: string }): string {
  const lines = [`Fixes #${args.issueNumber}`, ""];
  const by = args.requester ? ` requested by @${args.requester}` : "";
  lines.push(args.runUrl ? `Opened by aider-bot for [this run](${args.runUrl})${by}.` : `Opened by aider-bot${by}.`);
  if (args.summary?.trim()) lines.push("", args.summary.trim());
  lines.push("", "Review the change before merging: it was written by a language model.");
  return lines.join("\n");
}

/**
 * Open a PR from `head` into `base`, or return the open one for `head` (idempotent: a retried job that already
 * pushed the branch finds its PR). Draft is configurable; repositories whose plan has no draft PRs answer 422, and
 * then a ready PR is opened instead. The requester is asked to review; that is best effort (they may lack access).
 */
export async function ensurePullRequest(
  api: GitHubApi,
  args: RepoRef & { head: string; base: string; title: string; body: string; draft: boolean; reviewer?: string },
): Promise<PullRequestRef & { created: boolean }> {
  const existing = await findPullRequestForBranch(api, { owner: args.owner, repo: args.repo, branch: args.head });
  if (existing) return { ...existing, created: false };
  const create = (draft: boolean) =>
    api.request("POST /repos/{owner}/{repo}/pulls", { owner: args.owner, repo: args.repo, head: args.head, base: args.base, title: args.title, body: args.body, draft });
  let res;
  try {
    res = await create(args.draft);
  } catch (error) {
    if (!(args.draft && httpStatus(error) === 422 && /draft/i.test(String((error as Error).message)))) throw error;
    res = await create(false);
  }
  const pr = { number: res.data.number as number, url: res.data.html_url as string };
  if (args.reviewer) await requestReview(api, { owner: args.owner, repo: args.repo, pullNumber: pr.number, login: args.reviewer });
  return { ...pr, created: true };
}

/** Ask `login` to review; a 422 (not a collaborator, or the PR's author) is ignored. */
export async function requestReview(api: GitHubApi, args: RepoRef & { pullNumber: number; login: string }): Promise<void> {
  try {
    await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", { owner: args.owner, repo: args.repo, pull_number: args.pullNumber, reviewers: [args.login] });
  } catch (error) {
    if (httpStatus(error) !== 422) throw error;
  }
}
