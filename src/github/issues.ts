import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

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
  const pages = api.paginate.iterator(api.rest.issues.listForRepo, {
    owner: args.owner,
    repo: args.repo,
    state: "open",
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
