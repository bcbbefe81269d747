import type { ClosingIssue } from "../pr-data.js";
import type { GitHubReader, RepoRef } from "./github-reader.js";

const CLOSING = `query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) { closingIssuesReferences(first: 10) { nodes { number title body } } }
  }
}`;

/** The issues this PR closes when merged ("Fixes #12" or linked in the sidebar). */
export async function fetchClosingIssues(api: GitHubReader, where: RepoRef, pull: number): Promise<ClosingIssue[]> {
  const data = await api.graphql<{
    repository: { pullRequest: { closingIssuesReferences: { nodes: ClosingIssue[] } } | null } | null;
  }>(CLOSING, {
    owner: where.owner,
    repo: where.repo,
    number: pull,
  });
  return (data.repository?.pullRequest?.closingIssuesReferences.nodes ?? []).map((i) => ({
    number: i.number,
    title: i.title,
    body: i.body ?? "",
  }));
}
