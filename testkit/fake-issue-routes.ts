import { commentJson, issueJson, userJson } from "./fake-github-json.js";
import type { FakeComment, FakeIssue } from "./fake-github-state.js";
import { notFound, type RepoCall, type Route, type RouteResponse } from "./fake-route-table.js";
import { answer, failure, type Shape } from "./github-shapes.js";

const REACTIONS: readonly NonNullable<Shape<"reaction">["content"]>[] = [
  "+1",
  "-1",
  "laugh",
  "confused",
  "heart",
  "hooray",
  "rocket",
  "eyes",
];

/** The fake's issue routes: issues, their comments, and reactions (to issues, comments and review comments). */
export const ISSUE_ROUTES: readonly Route<RepoCall>[] = [
  { method: "POST", path: "issues/:number/reactions", handle: react },
  { method: "POST", path: "issues/comments/:id/reactions", handle: react },
  { method: "POST", path: "pulls/comments/:id/reactions", handle: react },
  { method: "GET", path: "issues/comments/:id", handle: commentById },
  { method: "PATCH", path: "issues/comments/:id", handle: commentById },
  { method: "POST", path: "issues", handle: createIssue },
  { method: "GET", path: "issues", handle: listIssues },
  { method: "POST", path: "issues/:number/comments", handle: createComment },
  { method: "GET", path: "issues/:number/comments", handle: listComments },
  { method: "GET", path: "issues/:number", handle: issueByNumber },
  { method: "PATCH", path: "issues/:number", handle: issueByNumber },
];

/** A reaction by the bot, recorded with its subject (the path before `/reactions`, e.g. `issues/comments/7`). */
function react({ ctx, req, repo }: RepoCall): RouteResponse {
  const subject = req.segments.slice(3, -1).join("/");
  const content = REACTIONS.find((r) => r === req.body.content);
  // GitHub refuses a reaction it does not have, as a validation error.
  if (content === undefined)
    return failure(422, "Validation Failed", {
      errors: [{ resource: "Reaction", field: "content", code: "invalid" }],
    });
  repo.reactions.push({ subject, content, user: ctx.state.botLogin });
  return answer("reactions/create-for-issue", 201, {
    id: ctx.state.id(),
    content,
    user: userJson(ctx.state.botLogin),
  });
}

function commentById({ ctx, req, repo, match }: RepoCall): RouteResponse {
  const comment = repo.comments.find((c) => c.id === Number(match.param("id")));
  if (!comment) return notFound;
  if (req.method === "PATCH") {
    comment.body = String(req.body.body);
    comment.updatedAt = new Date().toISOString();
  }
  return answer("issues/get-comment", 200, commentJson(ctx, repo, comment));
}

function createIssue({ ctx, req, repo }: RepoCall): RouteResponse {
  const { body } = req;
  const number = ctx.state.nextIssueNumber(repo);
  const issue: FakeIssue = {
    number,
    title: String(body.title),
    body: String(body.body ?? ""),
    user: ctx.state.botLogin,
    labels: (body.labels as string[] | undefined) ?? [],
  };
  repo.issues.set(number, issue);
  return answer("issues/create", 201, issueJson(ctx, repo, issue));
}

/** Issues (not pull requests), by `creator` and `state` (open by default) as GitHub filters them. */
function listIssues({ ctx, req, repo }: RepoCall): RouteResponse {
  const creator = req.query.get("creator");
  const wanted = req.query.get("state") ?? "open";
  const list = [...repo.issues.values()].filter(
    (i) =>
      !i.pull && (!creator || i.user === creator) && (wanted === "all" || (wanted === "closed") === Boolean(i.closed)),
  );
  return answer(
    "issues/list-for-repo",
    200,
    list.map((i) => issueJson(ctx, repo, i)),
  );
}

function createComment({ ctx, req, repo, match }: RepoCall): RouteResponse {
  const number = Number(match.param("number"));
  if (!repo.issues.has(number)) return notFound;
  const now = new Date().toISOString();
  const comment: FakeComment = {
    id: ctx.state.id(),
    issueNumber: number,
    body: String(req.body.body),
    user: ctx.state.botLogin,
    createdAt: now,
    updatedAt: now,
  };
  repo.comments.push(comment);
  return answer("issues/create-comment", 201, commentJson(ctx, repo, comment));
}

/** An issue's comments, a page at a time; like GitHub, a `link` header points at the next page (Octokit follows it). */
function listComments({ ctx, req, repo, match }: RepoCall): RouteResponse {
  const number = Number(match.param("number"));
  if (!repo.issues.has(number)) return notFound;
  const perPage = Number(req.query.get("per_page") ?? 30);
  const page = Number(req.query.get("page") ?? 1);
  const all = repo.comments.filter((c) => c.issueNumber === number);
  const nextUrl = `${ctx.apiUrl}/repos/${repo.owner}/${repo.name}/issues/${number}/comments?per_page=${perPage}&page=${page + 1}`;
  const next = page * perPage < all.length ? { link: `<${nextUrl}>; rel="next"` } : undefined;
  const json = all.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(ctx, repo, c));
  return { ...answer("issues/list-comments", 200, json), ...(next ? { headers: next } : {}) };
}

function issueByNumber({ ctx, req, repo, match }: RepoCall): RouteResponse {
  const issue = repo.issues.get(Number(match.param("number")));
  if (!issue) return notFound;
  const { body } = req;
  if (req.method === "PATCH") {
    if (typeof body.title === "string") issue.title = body.title;
    if (typeof body.body === "string") issue.body = body.body;
    if (body.state === "open" || body.state === "closed") issue.closed = body.state === "closed";
  }
  return answer("issues/get", 200, issueJson(ctx, repo, issue));
}
