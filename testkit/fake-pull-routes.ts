import { pullJson, userJson, type FakePull } from "./fake-github-json.js";
import type { FakeIssue, FakeRepo } from "./fake-github-state.js";
import { notFound, type RepoCall, type Route, type RouteResponse } from "./fake-route-table.js";
import { answer, type Shape } from "./github-shapes.js";

/** The fake's pull-request routes: list, open, read, request reviewers, review comments and replies to them. */
export const PULL_ROUTES: readonly Route<RepoCall>[] = [
  { method: "GET", path: "pulls", handle: listPulls },
  { method: "POST", path: "pulls", handle: openPull },
  { method: "GET", path: "pulls/:number", handle: withPull(readPull) },
  { method: "POST", path: "pulls/:number/requested_reviewers", handle: withPull(requestReviewers) },
  { method: "POST", path: "pulls/:number/comments/:id/replies", handle: withPull(replyToReviewComment) },
  { method: "GET", path: "pulls/:number/comments", handle: withPull(listReviewComments) },
];

/** Pull requests, by `head` (`owner:branch`) and `state` (open by default) as GitHub filters them. */
async function listPulls({ ctx, req, repo }: RepoCall): Promise<RouteResponse> {
  const head = req.query.get("head");
  const wanted = req.query.get("state") ?? "open";
  const pulls = [...repo.issues.values()].filter(
    (i): i is FakePull =>
      isPull(i) &&
      (!head || `${repo.owner}:${i.pull.head}` === head) &&
      (wanted === "all" || (wanted === "closed") === Boolean(i.closed)),
  );
  return answer("pulls/list", 200, await Promise.all(pulls.map((p) => pullJson(ctx, repo, p))));
}

async function openPull({ ctx, req, repo }: RepoCall): Promise<RouteResponse> {
  const { body } = req;
  const pull: FakePull = {
    number: ctx.state.nextIssueNumber(repo),
    title: String(body.title),
    body: String(body.body ?? ""),
    user: ctx.state.botLogin,
    labels: [],
    pull: {
      head: String(body.head).replace(/^[^:]+:/, ""),
      base: String(body.base),
      draft: Boolean(body.draft),
      requestedReviewers: [],
    },
  };
  repo.issues.set(pull.number, pull);
  return answer("pulls/create", 201, await pullJson(ctx, repo, pull));
}

/** A handler for `pulls/:number/…`: 404 unless the number is a pull request's. */
function withPull(
  handle: (call: RepoCall, pull: FakePull) => Promise<RouteResponse> | RouteResponse,
): (call: RepoCall) => Promise<RouteResponse> | RouteResponse {
  return (call) => {
    const issue = call.repo.issues.get(Number(call.match.param("number")));
    return issue && isPull(issue) ? handle(call, issue) : notFound;
  };
}

function isPull(issue: FakeIssue): issue is FakePull {
  return issue.pull !== undefined;
}

async function readPull({ ctx, repo }: RepoCall, pull: FakePull): Promise<RouteResponse> {
  return answer("pulls/get", 200, await pullJson(ctx, repo, pull));
}

async function requestReviewers({ ctx, req, repo }: RepoCall, pull: FakePull): Promise<RouteResponse> {
  for (const reviewer of (req.body.reviewers as string[] | undefined) ?? []) {
    if (reviewer !== pull.pull.head) pull.pull.requestedReviewers.push(reviewer);
  }
  return answer("pulls/request-reviewers", 201, await pullJson(ctx, repo, pull));
}

function replyToReviewComment({ ctx, req, repo, match }: RepoCall, pull: FakePull): RouteResponse {
  const parent = repo.reviewComments.find((c) => c.id === Number(match.param("id")));
  if (!parent) return notFound;
  const reply = {
    id: ctx.state.id(),
    pullNumber: pull.number,
    body: String(req.body.body),
    user: ctx.state.botLogin,
    path: parent.path,
    line: parent.line,
    inReplyTo: parent.id,
  };
  repo.reviewComments.push(reply);
  return answer("pulls/create-reply-for-review-comment", 201, {
    id: reply.id,
    body: reply.body,
    in_reply_to_id: parent.id,
    user: userJson(reply.user),
  });
}

function listReviewComments({ repo }: RepoCall, pull: FakePull): RouteResponse {
  return answer("pulls/list-review-comments", 200, reviewComments(repo, pull.number));
}

function reviewComments(repo: FakeRepo, pullNumber: number): Shape<"pull-request-review-comment">[] {
  return repo.reviewComments
    .filter((c) => c.pullNumber === pullNumber)
    .map((c) => ({
      id: c.id,
      body: c.body,
      path: c.path,
      line: c.line,
      in_reply_to_id: c.inReplyTo,
      user: userJson(c.user),
    }));
}
