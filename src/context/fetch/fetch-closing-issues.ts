import type { RepoGitHub } from "../../github/repo-github.js";
import type { ClosingIssue } from "../pr-data.js";

/** The issues this PR closes when merged ("Fixes #12" or linked in the sidebar). */
export async function fetchClosingIssues(github: RepoGitHub, pull: number): Promise<ClosingIssue[]> {
  const issues = await github.listClosingIssues(pull);
  return issues.map((i) => ({ number: i.number, title: i.title, body: i.body ?? "" }));
}
