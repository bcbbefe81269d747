import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Exec } from "../exec/types.js";
import { commitVerification, createGitRef } from "./fake-commit-on-branch.js";
import { routeJobLogDownload, routePrContext } from "./fake-github-pr-routes.js";
import type { FakeGitHubState, FakeIssue, FakeRepo } from "./fake-github-state.js";

export interface RouteRequest {
  method: string;
  segments: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
}

export type RouteResponse = { status: number; json?: unknown; text?: string; headers?: Record<string, string> };

interface RouteContext {
  state: FakeGitHubState;
  exec: Exec;
  /** Absolute path of the bare repository for owner/name. */
  bareDir(repo: FakeRepo): string;
  apiUrl: string;
  webUrl: string;
}

const notFound: RouteResponse = { status: 404, json: { message: "Not Found" } };

/** GitHub's limits on what we write: 65,536 characters for a comment, issue or PR body, 65,535 for Check Run output. */
const BODY_LIMIT = 65_536;
const CHECK_OUTPUT_LIMIT = 65_535;

/** The 422 GitHub answers when a written text is over its limit, or null when everything fits. */
function overLimit(body: Record<string, unknown>): RouteResponse | null {
  if (typeof body.body === "string" && body.body.length > BODY_LIMIT) {
    return {
      status: 422,
      json: {
        message: "Validation Failed",
        errors: [
          {
            resource: "IssueComment",
            code: "unprocessable",
            field: "data",
            message: "Body is too long (maximum is 65536 characters)",
          },
        ],
      },
    };
  }
  const output = body.output as { summary?: unknown; text?: unknown } | undefined;
  for (const field of ["summary", "text"] as const) {
    const v = output?.[field];
    if (typeof v === "string" && v.length > CHECK_OUTPUT_LIMIT) {
      return {
        status: 422,
        json: {
          message: "Invalid request.",
          errors: [`Only ${CHECK_OUTPUT_LIMIT} characters are allowed; ${v.length} were supplied (output.${field}).`],
        },
      };
    }
  }
  return null;
}

function user(login: string) {
  return { login, id: login.length, type: login.endsWith("[bot]") ? "Bot" : "User" };
}

async function branchSha(ctx: RouteContext, repo: FakeRepo, ref: string): Promise<string | null> {
  const fast = await readBranchRef(ctx.bareDir(repo), ref);
  if (fast !== undefined) return fast;
  const r = await ctx.exec.run({
    command: "git",
    args: ["rev-parse", "--verify", `refs/heads/${ref}`],
    cwd: ctx.bareDir(repo),
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/**
 * A branch's commit read from the bare repository's files (loose ref, else packed-refs): the fake answers API calls
 * on one event loop, and a git process per call (~20 ms of spawn each) made it the bottleneck of the storm bench.
 * `undefined` when the files do not say (a symbolic ref, an odd name): the caller asks git.
 */
async function readBranchRef(bare: string, branch: string): Promise<string | null | undefined> {
  if (!/^[\w./-]+$/.test(branch) || branch.includes("..")) return undefined;
  const loose = await readFile(path.join(bare, "refs/heads", branch), "utf8").catch(() => null);
  if (loose !== null) return /^[0-9a-f]{40}$/.test(loose.trim()) ? loose.trim() : undefined;
  const packed = await readFile(path.join(bare, "packed-refs"), "utf8").catch(() => "");
  for (const line of packed.split("\n")) {
    const [sha, name] = line.split(" ");
    if (name === `refs/heads/${branch}` && /^[0-9a-f]{40}$/.test(sha ?? "")) return sha!;
  }
  return null;
}

/** File contents by commit and path: immutable, so kept for the fake's life (see readBranchRef for why). */
const contentCache = new WeakMap<FakeRepo, Map<string, string | null>>();

async function fileAt(ctx: RouteContext, repo: FakeRepo, ref: string, file: string): Promise<string | null> {
  const sha = /^[0-9a-f]{40}$/.test(ref) ? ref : await readBranchRef(ctx.bareDir(repo), ref);
  const cache = contentCache.get(repo) ?? new Map<string, string | null>();
  contentCache.set(repo, cache);
  const key = sha ? `${sha}:${file}` : null;
  if (key && cache.has(key)) return cache.get(key)!;
  const out = await ctx.exec.run({ command: "git", args: ["show", `${sha ?? ref}:${file}`], cwd: ctx.bareDir(repo) });
  const text = out.exitCode === 0 ? out.stdout : null;
  if (key) cache.set(key, text);
  return text;
}

function issueJson(ctx: RouteContext, repo: FakeRepo, issue: FakeIssue) {
  const base = `${ctx.apiUrl}/repos/${repo.owner}/${repo.name}`;
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body,
    user: user(issue.user),
    state: issue.closed ? "closed" : "open",
    labels: issue.labels.map((name) => ({ name })),
    html_url: `${ctx.webUrl}/${repo.owner}/${repo.name}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    url: `${base}/issues/${issue.number}`,
    ...(issue.pull ? { pull_request: { url: `${base}/pulls/${issue.number}` } } : {}),
  };
}

async function pullJson(ctx: RouteContext, repo: FakeRepo, issue: FakeIssue) {
  const pull = issue.pull!;
  const cloneUrl = `${ctx.webUrl}/${repo.owner}/${repo.name}.git`;
  const repoJson = {
    full_name: `${repo.owner}/${repo.name}`,
    name: repo.name,
    owner: user(repo.owner),
    clone_url: cloneUrl,
    fork: false,
  };
  const headRepo =
    pull.headRepoFullName && pull.headRepoFullName !== repoJson.full_name
      ? {
          ...repoJson,
          full_name: pull.headRepoFullName,
          fork: true,
          clone_url: `${ctx.webUrl}/${pull.headRepoFullName}.git`,
        }
      : repoJson;
  return {
    ...issueJson(ctx, repo, issue),
    draft: pull.draft,
    head: {
      ref: pull.head,
      sha: (await branchSha(ctx, repo, pull.head)) ?? "0".repeat(40),
      repo: headRepo,
      label: `${repo.owner}:${pull.head}`,
    },
    maintainer_can_modify: pull.maintainerCanModify ?? false,
    base: { ref: pull.base, sha: (await branchSha(ctx, repo, pull.base)) ?? "0".repeat(40), repo: repoJson },
    requested_reviewers: pull.requestedReviewers.map(user),
  };
}

/** Answer one REST call of the subset aider-bot uses; anything else is a 404 the tests can see in `calls`. */
export async function routeRequest(ctx: RouteContext, req: RouteRequest): Promise<RouteResponse> {
  const { method, segments: s, body } = req;
  const { state } = ctx;
  const key = `${method} /${s.join("/")}`;

  if (method === "GET" && s[0] === "app" && s[1] === "installations" && s.length === 2) {
    const owners = [...new Set([...state.repos.values()].map((r) => r.owner))];
    return { status: 200, json: [{ id: 1, account: user(owners[0] ?? "acme") }] };
  }
  if (method === "GET" && s[0] === "installation" && s[1] === "repositories") {
    const repos = [...state.repos.values()].map((r) => ({
      name: r.name,
      full_name: `${r.owner}/${r.name}`,
      owner: user(r.owner),
      default_branch: r.defaultBranch,
      clone_url: `${ctx.webUrl}/${r.owner}/${r.name}.git`,
      html_url: `${ctx.webUrl}/${r.owner}/${r.name}`,
      archived: false,
    }));
    return { status: 200, json: { total_count: repos.length, repositories: repos } };
  }
  if (method === "GET" && s[0] === "app" && s.length === 1)
    return { status: 200, json: { id: 1, slug: state.botLogin.replace("[bot]", ""), name: "aider-bot" } };
  if (method === "POST" && s[0] === "app" && s[1] === "installations" && s[3] === "access_tokens" && s.length === 4) {
    return accessToken(ctx, Number(s[2]), body);
  }
  const download = routeJobLogDownload(state, s);
  if (download) return download;
  if (s[0] !== "repos" || s.length < 3) return notFound;
  const repo = state.repo(s[1]!, s[2]!);
  if (!repo) return notFound;
  const rest = s.slice(3);
  const r = rest.join("/");
  if (method === "POST" || method === "PATCH") {
    const refused = overLimit(body);
    if (refused) return refused;
  }
  const prContext = await routePrContext(ctx, repo, method, rest, req.query);
  if (prContext) return prContext;

  if (method === "GET" && rest.length === 0) {
    return {
      status: 200,
      json: {
        name: repo.name,
        full_name: `${repo.owner}/${repo.name}`,
        owner: user(repo.owner),
        default_branch: repo.defaultBranch,
        clone_url: `${ctx.webUrl}/${repo.owner}/${repo.name}.git`,
        private: false,
      },
    };
  }
  if (method === "GET" && r === "installation") return { status: 200, json: { id: 1, account: user(repo.owner) } };
  if (method === "GET" && rest[0] === "git" && rest[1] === "trees" && rest[2]) {
    // The whole tree of a branch or commit (`recursive` set, as aider-bot asks), blobs with their sizes.
    const ref = decodeURIComponent(rest.slice(2).join("/"));
    const out = await ctx.exec.run({
      command: "git",
      args: ["ls-tree", "-r", "-l", "-z", ref],
      cwd: ctx.bareDir(repo),
    });
    if (out.exitCode !== 0) return notFound;
    const tree = out.stdout
      .split("\0")
      .filter(Boolean)
      .map((line) => {
        const [meta, file] = line.split("\t");
        const [mode, type, sha, size] = meta!.trim().split(/\s+/);
        return { path: file, mode, type, sha, ...(type === "blob" ? { size: Number(size) } : {}) };
      });
    return { status: 200, json: { sha: ref, tree, truncated: false } };
  }
  if (method === "GET" && rest[0] === "contents") {
    const path = decodeURIComponent(rest.slice(1).join("/"));
    const ref = req.query.get("ref") ?? repo.defaultBranch;
    const text = await fileAt(ctx, repo, ref, path);
    if (text === null) return notFound;
    // `git show` of a folder prints "tree <ref>:<path>" and its entries (folders end in "/"): the API lists them.
    const header = `:${path}\n\n`;
    if (text.startsWith("tree ") && text.slice(0, text.indexOf("\n\n") + 2).endsWith(header)) {
      const names = text
        .slice(text.indexOf("\n\n") + 2)
        .split("\n")
        .filter(Boolean);
      const json = names.map((n) => {
        const name = n.replace(/\/$/, "");
        return { name, path: path ? `${path}/${name}` : name, type: n.endsWith("/") ? "dir" : "file" };
      });
      return { status: 200, json };
    }
    return { status: 200, text };
  }
  if (method === "GET" && rest[0] === "collaborators" && rest[2] === "permission") {
    const login = decodeURIComponent(rest[1]!);
    const permission = repo.permissions[login] ?? "none";
    if (permission === "none") return { status: 404, json: { message: `${login} is not a user` } };
    return {
      status: 200,
      json: {
        permission: permission === "maintain" ? "write" : permission === "triage" ? "read" : permission,
        role_name: permission,
        user: user(login),
      },
    };
  }
  if (method === "POST" && rest.at(-1) === "reactions") {
    repo.reactions.push({ subject: rest.slice(0, -1).join("/"), content: String(body.content), user: state.botLogin });
    return { status: 201, json: { id: state.id(), content: body.content, user: user(state.botLogin) } };
  }
  if (rest[0] === "issues" && rest[1] === "comments" && rest[2]) {
    const comment = repo.comments.find((c) => c.id === Number(rest[2]));
    if (!comment) return notFound;
    if (method === "PATCH") {
      comment.body = String(body.body);
      comment.updatedAt = new Date().toISOString();
    }
    return { status: 200, json: commentJson(ctx, repo, comment) };
  }
  if (rest[0] === "issues" && rest.length === 1) {
    if (method === "POST") {
      const number = state.nextIssueNumber(repo);
      const issue: FakeIssue = {
        number,
        title: String(body.title),
        body: String(body.body ?? ""),
        user: state.botLogin,
        labels: (body.labels as string[] | undefined) ?? [],
      };
      repo.issues.set(number, issue);
      return { status: 201, json: issueJson(ctx, repo, issue) };
    }
    const creator = req.query.get("creator");
    const wanted = req.query.get("state") ?? "open";
    const list = [...repo.issues.values()].filter(
      (i) =>
        !i.pull &&
        (!creator || i.user === creator) &&
        (wanted === "all" || (wanted === "closed") === Boolean(i.closed)),
    );
    return { status: 200, json: list.map((i) => issueJson(ctx, repo, i)) };
  }
  if (rest[0] === "issues" && rest[1] && rest[2] === "comments") {
    const number = Number(rest[1]);
    if (!repo.issues.has(number)) return notFound;
    if (method === "POST") {
      const now = new Date().toISOString();
      const comment = {
        id: state.id(),
        issueNumber: number,
        body: String(body.body),
        user: state.botLogin,
        createdAt: now,
        updatedAt: now,
      };
      repo.comments.push(comment);
      return { status: 201, json: commentJson(ctx, repo, comment) };
    }
    const perPage = Number(req.query.get("per_page") ?? 30);
    const page = Number(req.query.get("page") ?? 1);
    const all = repo.comments.filter((c) => c.issueNumber === number);
    // Like GitHub, a `link` header points at the next page: Octokit's paginate follows it and nothing else.
    const next =
      page * perPage < all.length
        ? {
            link: `<${ctx.apiUrl}/repos/${repo.owner}/${repo.name}/issues/${number}/comments?per_page=${perPage}&page=${page + 1}>; rel="next"`,
          }
        : undefined;
    return {
      status: 200,
      json: all.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(ctx, repo, c)),
      ...(next ? { headers: next } : {}),
    };
  }
  if ((method === "GET" || method === "PATCH") && rest[0] === "issues" && rest.length === 2) {
    const issue = repo.issues.get(Number(rest[1]));
    if (!issue) return notFound;
    if (method === "PATCH") {
      if (typeof body.title === "string") issue.title = body.title;
      if (typeof body.body === "string") issue.body = body.body;
      if (body.state === "open" || body.state === "closed") issue.closed = body.state === "closed";
    }
    return { status: 200, json: issueJson(ctx, repo, issue) };
  }
  if (rest[0] === "pulls") return routePulls(ctx, repo, req, rest);
  if (rest[0] === "check-runs") {
    if (method === "POST") {
      const run = {
        id: state.id(),
        name: String(body.name),
        headSha: String(body.head_sha),
        status: String(body.status ?? "queued"),
        conclusion: body.conclusion as string | undefined,
        output: body.output as never,
      };
      repo.checkRuns.push(run);
      return { status: 201, json: { id: run.id, ...body } };
    }
    const run = repo.checkRuns.find((c) => c.id === Number(rest[1]));
    if (!run) return notFound;
    if (method === "PATCH")
      Object.assign(run, {
        status: body.status ?? run.status,
        conclusion: body.conclusion ?? run.conclusion,
        output: body.output ?? run.output,
      });
    return {
      status: 200,
      json: { id: run.id, name: run.name, head_sha: run.headSha, status: run.status, conclusion: run.conclusion },
    };
  }
  if (method === "GET" && rest[0] === "commits" && rest[1]) {
    const ref = decodeURIComponent(rest[1]);
    const known = async (oid: string) =>
      (await ctx.exec.run({ command: "git", args: ["cat-file", "-e", `${oid}^{commit}`], cwd: ctx.bareDir(repo) }))
        .exitCode === 0;
    const sha = /^[0-9a-f]{40}$/.test(ref) ? ((await known(ref)) ? ref : null) : await branchSha(ctx, repo, ref);
    if (!sha) return notFound;
    const verification = commitVerification(state, sha);
    return { status: 200, json: { sha, verification, commit: { verification } } };
  }
  if (method === "POST" && r === "git/refs") {
    return createGitRef(ctx, repo, body);
  }
  void key;
  return notFound;
}

function commentJson(
  ctx: RouteContext,
  repo: FakeRepo,
  c: { id: number; issueNumber: number; body: string; user: string; createdAt: string; updatedAt: string },
) {
  return {
    id: c.id,
    body: c.body,
    user: user(c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `${ctx.webUrl}/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
  };
}

async function routePulls(
  ctx: RouteContext,
  repo: FakeRepo,
  req: RouteRequest,
  rest: string[],
): Promise<RouteResponse> {
  const { method, body } = req;
  const { state } = ctx;
  if (rest.length === 1 && method === "GET") {
    const head = req.query.get("head");
    const wanted = req.query.get("state") ?? "open";
    const pulls = [...repo.issues.values()].filter(
      (i) =>
        i.pull &&
        (!head || `${repo.owner}:${i.pull.head}` === head) &&
        (wanted === "all" || (wanted === "closed") === Boolean(i.closed)),
    );
    return { status: 200, json: await Promise.all(pulls.map((p) => pullJson(ctx, repo, p))) };
  }
  if (rest.length === 1 && method === "POST") {
    const number = state.nextIssueNumber(repo);
    const issue: FakeIssue = {
      number,
      title: String(body.title),
      body: String(body.body ?? ""),
      user: state.botLogin,
      labels: [],
      pull: {
        head: String(body.head).replace(/^[^:]+:/, ""),
        base: String(body.base),
        draft: Boolean(body.draft),
        requestedReviewers: [],
      },
    };
    repo.issues.set(number, issue);
    return { status: 201, json: await pullJson(ctx, repo, issue) };
  }
  if (rest[1] === "comments" && rest[2] && rest[3] === "reactions") return notFound; // handled by the generic route
  const issue = repo.issues.get(Number(rest[1]));
  if (!issue?.pull) return notFound;
  if (rest.length === 2 && method === "GET") return { status: 200, json: await pullJson(ctx, repo, issue) };
  if (rest[2] === "requested_reviewers" && method === "POST") {
    const reviewers = (body.reviewers as string[] | undefined) ?? [];
    for (const r of reviewers) {
      if (r === issue.pull.head) continue;
      issue.pull.requestedReviewers.push(r);
    }
    return { status: 201, json: await pullJson(ctx, repo, issue) };
  }
  if (rest[2] === "comments" && rest[4] === "replies" && method === "POST") {
    const parent = repo.reviewComments.find((c) => c.id === Number(rest[3]));
    if (!parent) return notFound;
    const reply = {
      id: state.id(),
      pullNumber: issue.number,
      body: String(body.body),
      user: state.botLogin,
      path: parent.path,
      line: parent.line,
      inReplyTo: parent.id,
    };
    repo.reviewComments.push(reply);
    return { status: 201, json: { id: reply.id, body: reply.body, in_reply_to_id: parent.id, user: user(reply.user) } };
  }
  if (rest[2] === "comments" && method === "GET") {
    return {
      status: 200,
      json: repo.reviewComments
        .filter((c) => c.pullNumber === issue.number)
        .map((c) => ({
          id: c.id,
          body: c.body,
          path: c.path,
          line: c.line,
          in_reply_to_id: c.inReplyTo,
          user: user(c.user),
        })),
    };
  }
  return notFound;
}

/**
 * `POST /app/installations/{installation_id}/access_tokens` as GitHub documents it: optional `repositories`
 * (names) and `permissions` narrow the token; a name the installation cannot reach is a 422. The scope asked for is
 * recorded in `state.tokenScopes`.
 */
function accessToken(ctx: RouteContext, installationId: number, body: unknown): RouteResponse {
  const { state } = ctx;
  const b = (body ?? {}) as { repositories?: unknown; permissions?: unknown };
  const names = b.repositories;
  if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== "string"))) {
    return { status: 422, json: { message: "Invalid request: repositories must be an array of repository names." } };
  }
  const perms = b.permissions;
  if (
    perms !== undefined &&
    (typeof perms !== "object" || perms === null || Object.values(perms).some((v) => v !== "read" && v !== "write"))
  ) {
    return {
      status: 422,
      json: { message: 'Invalid request: permissions must map permission names to "read" or "write".' },
    };
  }
  const all = [...state.repos.values()];
  const selected =
    names === undefined
      ? all
      : all.filter((r) => (names as string[]).some((n) => n.toLowerCase() === r.name.toLowerCase()));
  if (names !== undefined && selected.length !== (names as string[]).length) {
    return {
      status: 422,
      json: {
        message:
          "There is at least one repository that does not exist or is not accessible to the parent installation.",
      },
    };
  }
  const token = `ghs_fake${state.id()}x${Math.random().toString(36).slice(2, 12)}`;
  state.issuedTokens.push(token);
  state.tokenScopes.push({
    token,
    installationId,
    ...(names !== undefined ? { repositories: [...(names as string[])] } : {}),
    ...(perms !== undefined ? { permissions: { ...(perms as Record<string, string>) } } : {}),
  });
  return {
    status: 201,
    json: {
      token,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      permissions: perms ?? {
        contents: "write",
        issues: "write",
        pull_requests: "write",
        checks: "write",
        metadata: "read",
      },
      repository_selection: names === undefined ? "all" : "selected",
      ...(names !== undefined
        ? {
            repositories: selected.map((r) => ({
              name: r.name,
              full_name: `${r.owner}/${r.name}`,
              owner: user(r.owner),
              private: false,
            })),
          }
        : {}),
    },
  };
}
