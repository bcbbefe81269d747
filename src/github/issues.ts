import type { components } from "@octokit/openapi-types";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";
import { readPages } from "./read-pages.js";

export interface IssueRef {
  number: number;
  title: string;
  body: string;
}

/**
 * The open issue (not pull request) opened by `creator` whose body carries `marker`, or null: the bot finds its own
 * tracking issue again (e.g. one per schedule entry). Searches every page of that creator's open issues.
 */
export async function findOpenIssueByMarker(
  api: GitHubClient,
  args: RepoRef & { creator: string; marker: string },
): Promise<IssueRef | null> {
  return findIssueByMarker(api, { ...args, state: "open" });
}

/** {@link findOpenIssueByMarker} among the creator's issues in `state` ("all": closed ones too). */
export async function findIssueByMarker(
  api: GitHubClient,
  args: RepoRef & { creator: string; marker: string; state: "open" | "all" },
): Promise<IssueRef | null> {
  const pages = api.paginate.iterator(api.rest.issues.listForRepo, {
    owner: args.owner,
    repo: args.repo,
    state: args.state,
    creator: args.creator,
    per_page: 100,
  });
  return callGitHub(`Looking for the tracking issue on ${args.owner}/${args.repo}`, async () => {
    for await (const page of pages) {
      const hit = page.data.find((i) => !i.pull_request && (i.body ?? "").includes(args.marker));
      if (hit) return { number: hit.number, title: hit.title, body: hit.body ?? "" };
    }
    return null;
  });
}

/** Open an issue. */
export async function createIssue(
  api: GitHubClient,
  args: RepoRef & { title: string; body: string },
): Promise<IssueRef> {
  const { data } = await callGitHub(`Opening an issue on ${args.owner}/${args.repo}`, () =>
    api.rest.issues.create({ owner: args.owner, repo: args.repo, title: args.title, body: args.body }),
  );
  return { number: data.number, title: data.title, body: data.body ?? "" };
}

/** An issue's body as it is now ("" when it has none). */
export async function getIssueBody(api: GitHubClient, args: RepoRef & { number: number }): Promise<string> {
  const { data } = await callGitHub(`Reading issue ${args.owner}/${args.repo}#${args.number}`, () =>
    api.rest.issues.get({ owner: args.owner, repo: args.repo, issue_number: args.number }),
  );
  return data.body ?? "";
}

/** Replace an issue's body. */
export async function updateIssueBody(
  api: GitHubClient,
  args: RepoRef & { number: number; body: string },
): Promise<void> {
  await callGitHub(`Updating issue ${args.owner}/${args.repo}#${args.number}`, () =>
    api.rest.issues.update({ owner: args.owner, repo: args.repo, issue_number: args.number, body: args.body }),
  );
}

/** A comment of an issue's or pull request's conversation (`GET /repos/{owner}/{repo}/issues/{issue_number}/comments`). */
export type IssueCommentData = components["schemas"]["issue-comment"];

/** The conversation of an issue or PR, oldest first (100 a page, up to `maxPages` pages). */
export async function listIssueComments(
  api: GitHubClient,
  args: RepoRef & { number: number; maxPages: number },
): Promise<{ items: IssueCommentData[]; truncated: boolean }> {
  const pages = api.paginate.iterator(api.rest.issues.listComments, {
    owner: args.owner,
    repo: args.repo,
    issue_number: args.number,
    per_page: 100,
  });
  return readPages(`Listing the comments of ${args.owner}/${args.repo}#${args.number}`, pages, args.maxPages);
}
