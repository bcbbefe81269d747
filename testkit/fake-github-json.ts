import { branchSha } from "./fake-git-reads.js";
import type { FakeComment, FakeIssue, FakeRepo } from "./fake-github-state.js";
import type { RouteContext } from "./fake-route-table.js";
import type { Shape } from "./github-shapes.js";

/** The fake's objects in GitHub's REST shapes (the fields aider-bot reads), typed against GitHub's schemas. */

/** A user as every answer embeds one (each answer's type checks it against its own schema's user). */
export function userJson(login: string) {
  return { login, id: login.length, type: login.endsWith("[bot]") ? "Bot" : "User" } satisfies Shape<"simple-user">;
}

export function repoJson(ctx: RouteContext, repo: FakeRepo): Shape<"full-repository"> {
  return {
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: userJson(repo.owner),
    default_branch: repo.defaultBranch,
    clone_url: `${ctx.webUrl}/${repo.owner}/${repo.name}.git`,
    private: repo.private ?? false,
  };
}

/** The fields an issue and a pull request share (GitHub answers both from one record). */
function issueFields(ctx: RouteContext, repo: FakeRepo, issue: FakeIssue) {
  const base = `${ctx.apiUrl}/repos/${repo.owner}/${repo.name}`;
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body,
    user: userJson(issue.user),
    state: issue.closed ? ("closed" as const) : ("open" as const),
    labels: issue.labels.map((name) => ({ name })),
    html_url: `${ctx.webUrl}/${repo.owner}/${repo.name}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    url: `${base}/${issue.pull ? "pulls" : "issues"}/${issue.number}`,
  };
}

export function issueJson(ctx: RouteContext, repo: FakeRepo, issue: FakeIssue): Shape<"issue"> {
  const base = `${ctx.apiUrl}/repos/${repo.owner}/${repo.name}`;
  return {
    ...issueFields(ctx, repo, issue),
    url: `${base}/issues/${issue.number}`,
    ...(issue.pull ? { pull_request: { url: `${base}/pulls/${issue.number}` } } : {}),
  };
}

export function commentJson(ctx: RouteContext, repo: FakeRepo, c: FakeComment): Shape<"issue-comment"> {
  return {
    id: c.id,
    body: c.body,
    user: userJson(c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `${ctx.webUrl}/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
  };
}

/** An issue that is a pull request. */
export type FakePull = FakeIssue & { pull: NonNullable<FakeIssue["pull"]> };

/** A pull request as GitHub's single and list answers both describe it. */
export type PullJson = Shape<"pull-request"> & Shape<"pull-request-simple">;

/** A pull request: its issue's fields, its head (a fork's when `headRepoFullName` names another repo) and base. */
export async function pullJson(ctx: RouteContext, repo: FakeRepo, issue: FakePull): Promise<PullJson> {
  const { pull } = issue;
  const cloneUrl = `${ctx.webUrl}/${repo.owner}/${repo.name}.git`;
  const base = {
    full_name: `${repo.owner}/${repo.name}`,
    name: repo.name,
    owner: userJson(repo.owner),
    clone_url: cloneUrl,
    fork: false,
  };
  const headRepo =
    pull.headRepoFullName && pull.headRepoFullName !== base.full_name
      ? {
          ...base,
          full_name: pull.headRepoFullName,
          fork: true,
          clone_url: `${ctx.webUrl}/${pull.headRepoFullName}.git`,
        }
      : base;
  return {
    ...issueFields(ctx, repo, issue),
    draft: pull.draft,
    head: {
      ref: pull.head,
      sha: (await branchSha(ctx, repo, pull.head)) ?? "0".repeat(40),
      repo: headRepo,
      label: `${repo.owner}:${pull.head}`,
    },
    maintainer_can_modify: pull.maintainerCanModify ?? false,
    base: { ref: pull.base, sha: (await branchSha(ctx, repo, pull.base)) ?? "0".repeat(40), repo: base },
    requested_reviewers: pull.requestedReviewers.map(userJson),
  };
}
