import type { GitHubClient, RepoRef } from "../../github/github-client.js";
import { listClosingIssues } from "../../github/pull-request.js";
import type { ClosingIssue } from "../pr-data.js";

/** The issues this PR closes when merged ("Fixes #12" or linked in the sidebar). */
export async function fetchClosingIssues(api: GitHubClient, where: RepoRef, pull: number): Promise<ClosingIssue[]> {
  const issues = await listClosingIssues(api, { ...where, pullNumber: pull });
  return issues.map((i) => ({ number: i.number, title: i.title, body: i.body ?? "" }));
}
