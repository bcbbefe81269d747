import { createCommitOnBranch, type FakeCommitContext } from "./fake-commit-on-branch.js";
import type { FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import { prState } from "./fake-pr-state.js";

/**
 * The GraphQL operations aider-bot uses, answered by the fake (POST /graphql; with GitHub Enterprise `/api/graphql`):
 * `pullRequest.reviewThreads`, `pullRequest.closingIssuesReferences` and the `resolveReviewThread` and
 * `createCommitOnBranch` mutations (the latter needs `commits`, the fake's git side, and the caller's token). The fake
 * does not parse GraphQL: it recognises the operation by its fields and reads the variables, and answers in the
 * shapes of GitHub's schema. Anything else gets a GraphQL error the tests can see.
 */
export async function answerGraphql(
  state: FakeGitHubState,
  body: { query?: unknown; variables?: Record<string, unknown> },
  commits?: { ctx: FakeCommitContext; token: string | null },
): Promise<{ status: number; json: unknown }> {
  const query = String(body.query ?? "");
  const v = body.variables ?? {};
  if (/createCommitOnBranch\s*\(/.test(query)) {
    if (!commits) return error("The fake GitHub was started without its git side.", "UNSUPPORTED");
    return createCommitOnBranch(commits.ctx, (v.input ?? {}) as Record<string, unknown>, commits.token, {
      signature: /\bsignature\s*\{/.test(query),
    });
  }
  if (/resolveReviewThread\s*\(/.test(query)) {
    const thread = [...state.repos.values()].flatMap((r) => prState(r).threads).find((t) => t.id === v.threadId);
    if (!thread) return error(`Could not resolve to a node with the global id of '${String(v.threadId)}'`, "NOT_FOUND");
    thread.isResolved = true;
    return { status: 200, json: { data: { resolveReviewThread: { thread: { id: thread.id, isResolved: true } } } } };
  }
  const repo = state.repo(String(v.owner ?? ""), String(v.repo ?? ""));
  if (!repo)
    return error(
      `Could not resolve to a Repository with the name '${String(v.owner)}/${String(v.repo)}'.`,
      "NOT_FOUND",
    );
  const number = Number(v.number);
  const issue = repo.issues.get(number);
  const pull = issue?.pull ? issue : null;
  if (/reviewThreads\s*\(/.test(query)) {
    return {
      status: 200,
      json: { data: { repository: { pullRequest: pull ? { reviewThreads: reviewThreads(repo, number) } : null } } },
    };
  }
  if (/closingIssuesReferences\s*\(/.test(query)) {
    const nodes = (prState(repo).closing.get(number) ?? [])
      .map((n) => repo.issues.get(n))
      .filter((i) => i !== undefined)
      .map((i) => ({ number: i.number, title: i.title, body: i.body }));
    return {
      status: 200,
      json: { data: { repository: { pullRequest: pull ? { closingIssuesReferences: { nodes } } : null } } },
    };
  }
  return error("The fake GitHub does not implement this GraphQL operation.", "UNSUPPORTED");
}

function reviewThreads(repo: FakeRepo, pull: number) {
  const s = prState(repo);
  const nodes = s.threads
    .filter((t) => t.pullNumber === pull)
    .map((t) => {
      const first = repo.reviewComments.find((c) => c.id === t.firstCommentId);
      if (!first) throw new Error(`the fake's thread ${t.id} lost its first comment ${t.firstCommentId}`);
      const all = [first, ...repo.reviewComments.filter((c) => c.inReplyTo === t.firstCommentId)];
      return {
        id: t.id,
        isResolved: t.isResolved,
        isOutdated: t.isOutdated,
        path: first.path,
        line: t.isOutdated ? null : first.line,
        originalLine: first.line,
        comments: {
          nodes: all.map((c) => ({
            databaseId: c.id,
            body: c.body,
            diffHunk: s.diffHunks.get(t.firstCommentId) ?? "",
            author: { login: c.user },
          })),
        },
      };
    });
  return { pageInfo: { hasNextPage: false, endCursor: null }, nodes };
}

function error(message: string, type: string) {
  return { status: 200, json: { data: null, errors: [{ type, message }] } };
}
