import { userJson } from "./fake-github-json.js";
import type { FakeGitHubState, FakeInstallation } from "./fake-github-state.js";
import { notFound, type AppCall, type Route, type RouteResponse } from "./fake-route-table.js";
import { answer, failure } from "./github-shapes.js";
import { routeJobLogDownload } from "./fake-github-pr-routes.js";

/** The fake's routes outside a repository: the App, its installation, its tokens, and the job-log storage URL. */
export const APP_ROUTES: readonly Route<AppCall>[] = [
  {
    method: "GET",
    path: "app/installations",
    handle: ({ ctx }) =>
      answer(
        "apps/list-installations",
        200,
        [...ctx.state.installations.values()].map((i) => installationJson(ctx.state, i)),
      ),
  },
  {
    method: "GET",
    path: "app/installations/:id",
    handle: ({ ctx, match }) => {
      const found = ctx.state.installations.get(Number(match.param("id")));
      return found ? answer("apps/get-installation", 200, installationJson(ctx.state, found)) : notFound;
    },
  },
  {
    method: "GET",
    path: "installation/repositories",
    handle: ({ ctx }) => {
      const repos = [...ctx.state.repos.values()].map((r) => ({
        name: r.name,
        full_name: `${r.owner}/${r.name}`,
        owner: userJson(r.owner),
        default_branch: r.defaultBranch,
        clone_url: `${ctx.webUrl}/${r.owner}/${r.name}.git`,
        html_url: `${ctx.webUrl}/${r.owner}/${r.name}`,
        archived: false,
      }));
      return answer("apps/list-repos-accessible-to-installation", 200, {
        total_count: repos.length,
        repositories: repos,
      });
    },
  },
  {
    method: "GET",
    path: "app",
    handle: ({ ctx }) =>
      answer("apps/get-authenticated", 200, {
        id: 1,
        slug: ctx.state.botLogin.replace("[bot]", ""),
        name: "aider-bot",
      }),
  },
  {
    method: "POST",
    path: "app/installations/:id/access_tokens",
    handle: ({ ctx, req, match }) => accessToken(ctx.state, Number(match.param("id")), req.body),
  },
  {
    method: "*",
    path: "_fake/job-logs/:owner/:repo/:job",
    handle: ({ ctx, match }) =>
      routeJobLogDownload(ctx.state, match.param("owner"), match.param("repo"), Number(match.param("job"))),
  },
];

const INVALID_REPOSITORIES = "Invalid request: repositories must be an array of repository names.";
const INVALID_PERMISSIONS = 'Invalid request: permissions must map permission names to "read" or "write".';
const NOT_GRANTED = "The permissions requested are not granted to this installation.";
const INACCESSIBLE =
  "There is at least one repository that does not exist or is not accessible to the parent installation.";

/** An installation as `GET /app/installations/{id}` answers it: its account and the permissions it granted. */
function installationJson(state: FakeGitHubState, i: FakeInstallation) {
  const owners = [...new Set([...state.repos.values()].map((r) => r.owner))];
  return { id: i.id, account: userJson(i.account ?? owners[0] ?? "acme"), permissions: { ...i.permissions } };
}

const RANK: Record<string, number> = { read: 1, write: 2, admin: 3 };

/**
 * `POST /app/installations/{installation_id}/access_tokens` as GitHub documents it: optional `repositories`
 * (names of the installation account's repositories — a fork of the same name elsewhere is not one of them) and
 * `permissions` narrow the token; a name the installation cannot reach, or a permission (or level) the installation
 * did not grant, is a 422. The scope asked for is recorded in `state.tokenScopes`.
 */
function accessToken(state: FakeGitHubState, installationId: number, body: Record<string, unknown>): RouteResponse {
  const installation = state.installations.get(installationId);
  if (!installation) return notFound;
  const names = body.repositories;
  if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== "string"))) {
    return failure(422, INVALID_REPOSITORIES);
  }
  const perms = body.permissions;
  if (
    perms !== undefined &&
    (typeof perms !== "object" || perms === null || Object.values(perms).some((v) => v !== "read" && v !== "write"))
  ) {
    return failure(422, INVALID_PERMISSIONS);
  }
  const asked = perms as Record<string, string> | undefined;
  if (
    asked &&
    Object.entries(asked).some(([n, level]) => (RANK[installation.permissions[n] ?? ""] ?? 0) < RANK[level]!)
  )
    return failure(422, NOT_GRANTED, { documentation_url: DOCS_URL });
  const wanted = names as string[] | undefined;
  const account = installation.account?.toLowerCase();
  const all = [...state.repos.values()].filter((r) => account === undefined || r.owner.toLowerCase() === account);
  const selected =
    wanted === undefined ? all : all.filter((r) => wanted.some((n) => n.toLowerCase() === r.name.toLowerCase()));
  if (wanted !== undefined && selected.length !== wanted.length) {
    return failure(422, INACCESSIBLE);
  }
  const token = `ghs_fake${state.id()}x${Math.random().toString(36).slice(2, 12)}`;
  state.issuedTokens.push(token);
  state.tokenScopes.push({
    token,
    installationId,
    ...(wanted !== undefined ? { repositories: [...wanted] } : {}),
    ...(asked !== undefined ? { permissions: { ...asked } } : {}),
  });
  const repositories = selected.map((r) => ({
    name: r.name,
    full_name: `${r.owner}/${r.name}`,
    owner: userJson(r.owner),
    private: false,
  }));
  return answer("apps/create-installation-access-token", 201, {
    token,
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    permissions: asked ?? { ...installation.permissions },
    repository_selection: wanted === undefined ? "all" : "selected",
    ...(wanted !== undefined ? { repositories } : {}),
  });
}

const DOCS_URL = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app";
