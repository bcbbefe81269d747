import { commitVerification, createGitRef } from "./fake-commit-on-branch.js";
import { branchSha, fileAt } from "./fake-git-reads.js";
import { repoJson, userJson } from "./fake-github-json.js";
import { bearerToken, notFound, type RepoCall, type Route, type RouteResponse } from "./fake-route-table.js";
import { answer, failure } from "./github-shapes.js";

/** The fake's routes over a repository's git data and settings: the repo, trees, contents, commits, refs, roles. */
export const REPO_ROUTES: readonly Route<RepoCall>[] = [
  { method: "GET", path: "", handle: ({ ctx, repo }) => answer("repos/get", 200, repoJson(ctx, repo)) },
  {
    method: "GET",
    path: "installation",
    handle: ({ repo }) => answer("apps/get-repo-installation", 200, { id: 1, account: userJson(repo.owner) }),
  },
  { method: "GET", path: "git/trees/*", handle: needsContents(tree) },
  { method: "GET", path: "contents/*", handle: needsContents(contents) },
  { method: "GET", path: "collaborators/:login/permission", handle: permission },
  { method: "GET", path: "commits/:ref", handle: needsContents(commit) },
  { method: "POST", path: "git/refs", handle: ({ ctx, req, repo }) => createGitRef(ctx, repo, req.body) },
];

/**
 * `handle`, for a private repository only with a token that may read its contents: GitHub answers an installation token
 * minted without `contents` "Resource not accessible by integration" there (a public repository's contents are
 * anyone's). A token minted without a scope of its own carries all of its installation's permissions.
 */
function needsContents(
  handle: (call: RepoCall) => RouteResponse | Promise<RouteResponse>,
): (call: RepoCall) => RouteResponse | Promise<RouteResponse> {
  return (call) => {
    if (!call.repo.private) return handle(call);
    const permissions = call.ctx.state.tokenPermissions(bearerToken(call.req.authorization));
    if (permissions && permissions.contents !== "read" && permissions.contents !== "write")
      return failure(403, "Resource not accessible by integration");
    return handle(call);
  };
}

/** The tree of a branch or commit: its top level, or with `recursive` set the whole tree; blobs with their sizes. */
async function tree({ ctx, req, repo, match }: RepoCall): Promise<RouteResponse> {
  if (match.tail.length === 0) return notFound;
  const ref = decodeURIComponent(match.tail.join("/"));
  const recursive = req.query.has("recursive") ? ["-r"] : [];
  const args = ["ls-tree", ...recursive, "-l", "-z", ref];
  const out = await ctx.exec.run({ command: "git", args, cwd: ctx.bareDir(repo) });
  if (out.exitCode !== 0) return notFound;
  const entries = out.stdout
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [meta = "", file] = line.split("\t");
      const [mode, type, sha, size] = meta.trim().split(/\s+/);
      return { path: file, mode, type, sha, ...(type === "blob" ? { size: Number(size) } : {}) };
    });
  return answer("git/get-tree", 200, { sha: ref, tree: entries, truncated: false });
}

/** A file's text (raw, as the bot asks for it), or a folder's entries. */
async function contents({ ctx, req, repo, match }: RepoCall): Promise<RouteResponse> {
  const path = decodeURIComponent(match.tail.join("/"));
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
      return {
        name,
        path: path ? `${path}/${name}` : name,
        type: n.endsWith("/") ? ("dir" as const) : ("file" as const),
      };
    });
    return answer("repos/get-content", 200, json);
  }
  return { status: 200, text };
}

/** A collaborator's permission, with GitHub's mapping of the finer roles onto the classic levels. */
function permission({ repo, match }: RepoCall): RouteResponse {
  const login = decodeURIComponent(match.param("login"));
  const role = repo.permissions[login] ?? "none";
  if (role === "none") return failure(404, `${login} is not a user`);
  const classic = role === "maintain" ? "write" : role === "triage" ? "read" : role;
  return answer("repos/get-collaborator-permission-level", 200, {
    permission: classic,
    role_name: role,
    user: userJson(login),
  });
}

/** A commit by sha or branch, with its signature verification. */
async function commit({ ctx, repo, match }: RepoCall): Promise<RouteResponse> {
  const ref = decodeURIComponent(match.param("ref"));
  const known = async (oid: string) =>
    (await ctx.exec.run({ command: "git", args: ["cat-file", "-e", `${oid}^{commit}`], cwd: ctx.bareDir(repo) }))
      .exitCode === 0;
  const sha = /^[0-9a-f]{40}$/.test(ref) ? ((await known(ref)) ? ref : null) : await branchSha(ctx, repo, ref);
  if (!sha) return notFound;
  const verification = commitVerification(ctx.state, sha);
  return answer("repos/get-commit", 200, { sha, commit: { verification } });
}
