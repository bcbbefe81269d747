import type { components } from "@octokit/openapi-types";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, GitHubError, isGitHubFailure } from "./github-error.js";
import { readPages } from "./read-pages.js";

export interface PullRequestRef {
  number: number;
  url: string;
}

/** Where a PR's head is: the branch and commit to check out, and whether it comes from another repository (a fork). */
export interface PullRequestHead {
  number: number;
  headRef: string;
  headSha: string;
  /** Clone URL of the head repository; null when that repository was deleted (GitHub then reports `head.repo: null`). */
  headCloneUrl: string | null;
  isFork: boolean;
  url: string;
  baseRef: string;
}

/** The open PRs whose head is `owner:branch` (GitHub's head filter), at most `perPage` of them. */
async function listOpenForBranch(api: GitHubClient, args: RepoRef & { branch: string }, perPage: number) {
  const { data } = await callGitHub(
    `Looking for the open pull requests of ${args.owner}/${args.repo} branch ${args.branch}`,
    () =>
      api.rest.pulls.list({
        owner: args.owner,
        repo: args.repo,
        head: `${args.owner}:${args.branch}`,
        state: "open",
        per_page: perPage,
      }),
  );
  return data;
}

/** The open PR whose head is `branch` of this repository, or null. */
export async function findPullRequestForBranch(
  api: GitHubClient,
  args: RepoRef & { branch: string },
): Promise<PullRequestRef | null> {
  const [pr] = await listOpenForBranch(api, args, 1);
  return pr ? { number: pr.number, url: pr.html_url } : null;
}

/** The open PRs whose head is `owner:branch` (GitHub's head filter), with where each head is. */
export async function listOpenPullRequestsForBranch(
  api: GitHubClient,
  args: RepoRef & { branch: string },
): Promise<{ number: number; headRef: string; headSha: string; headFullName: string | null }[]> {
  return (await listOpenForBranch(api, args, 10)).map((pr) => ({
    number: pr.number,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    headFullName: pr.head.repo?.full_name ?? null,
  }));
}

/** A pull request as GitHub describes it (`GET /repos/{owner}/{repo}/pulls/{pull_number}`). */
export type PullRequestData = Awaited<ReturnType<GitHubClient["rest"]["pulls"]["get"]>>["data"];

/** A pull request, read now. */
export async function getPullRequest(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number },
): Promise<PullRequestData> {
  const { data } = await callGitHub(`Reading pull request ${args.owner}/${args.repo}#${args.pullNumber}`, () =>
    api.rest.pulls.get({ owner: args.owner, repo: args.repo, pull_number: args.pullNumber }),
  );
  return data;
}

/** A PR's head and base, as a run needs them. */
export async function getPullRequestHead(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number },
): Promise<PullRequestHead> {
  const pr = await getPullRequest(api, args);
  return {
    number: pr.number,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    headCloneUrl: pr.head.repo?.clone_url ?? null,
    isFork: pr.head.repo?.full_name !== `${args.owner}/${args.repo}`,
    url: pr.html_url,
    baseRef: pr.base.ref,
  };
}

/**
 * The body of a PR opened for an issue (pure). `Fixes #n` closes the issue on merge; the run link leads back to the
 * status comment with the details. The summary is the bot's own text, never the issue's.
 */
export function renderPullRequestBody(args: {
  issueNumber: number;
  runUrl?: string;
  requester?: string;
  summary?: string;
}): string {
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
  api: GitHubClient,
  args: RepoRef & { head: string; base: string; title: string; body: string; draft: boolean; reviewer?: string },
): Promise<PullRequestRef & { created: boolean }> {
  const existing = await findPullRequestForBranch(api, { owner: args.owner, repo: args.repo, branch: args.head });
  if (existing) return { ...existing, created: false };
  const create = (draft: boolean) =>
    callGitHub(`Opening a pull request from ${args.head} into ${args.base} on ${args.owner}/${args.repo}`, () =>
      api.rest.pulls.create({
        owner: args.owner,
        repo: args.repo,
        head: args.head,
        base: args.base,
        title: args.title,
        body: args.body,
        draft,
      }),
    );
  let res;
  try {
    res = await create(args.draft);
  } catch (error) {
    const draftRefused =
      error instanceof GitHubError && error.kind === "validation" && /draft/i.test(error.githubMessage);
    if (!(args.draft && draftRefused)) throw error;
    res = await create(false);
  }
  const pr = { number: res.data.number, url: res.data.html_url };
  if (args.reviewer)
    await requestReview(api, { owner: args.owner, repo: args.repo, pullNumber: pr.number, login: args.reviewer });
  return { ...pr, created: true };
}

/** Ask `login` to review; a 422 (not a collaborator, or the PR's author) is ignored. */
export async function requestReview(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; login: string },
): Promise<void> {
  try {
    await callGitHub(`Requesting a review from @${args.login} on ${args.owner}/${args.repo}#${args.pullNumber}`, () =>
      api.rest.pulls.requestReviewers({
        owner: args.owner,
        repo: args.repo,
        pull_number: args.pullNumber,
        reviewers: [args.login],
      }),
    );
  } catch (error) {
    // A requester who cannot be asked (not a collaborator, or the PR's author) is not a failed run.
    if (!isGitHubFailure(error, "validation")) throw error;
  }
}

/** A changed file of a pull request (`GET /repos/{owner}/{repo}/pulls/{pull_number}/files`). */
export type PullRequestFileData = components["schemas"]["diff-entry"];

/** A PR's changed files with their patches (100 a page, up to `maxPages` pages; GitHub lists at most 3,000). */
export async function listPullRequestFiles(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; maxPages: number },
): Promise<{ items: PullRequestFileData[]; truncated: boolean }> {
  const pages = api.paginate.iterator(api.rest.pulls.listFiles, {
    owner: args.owner,
    repo: args.repo,
    pull_number: args.pullNumber,
    per_page: 100,
  });
  return readPages(`Listing the files of ${args.owner}/${args.repo}#${args.pullNumber}`, pages, args.maxPages);
}

const CLOSING = `query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) { closingIssuesReferences(first: 10) { nodes { number title body } } }
  }
}`;

/** An issue a pull request closes, as the GraphQL query above returns it. */
export interface ClosingIssueData {
  number: number;
  title: string;
  body: string | null;
}

/** The (first 10) issues a PR closes when merged ("Fixes #12", or linked in the sidebar); GraphQL only. */
export async function listClosingIssues(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number },
): Promise<ClosingIssueData[]> {
  const data = await callGitHub(`Reading the issues ${args.owner}/${args.repo}#${args.pullNumber} closes`, () =>
    api.graphql<{
      repository: { pullRequest: { closingIssuesReferences: { nodes: ClosingIssueData[] } } | null } | null;
    }>(CLOSING, { owner: args.owner, repo: args.repo, number: args.pullNumber }),
  );
  return data.repository?.pullRequest?.closingIssuesReferences.nodes ?? [];
}
