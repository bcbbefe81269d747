import { APP_ROUTES } from "./fake-app-routes.js";
import { CHECK_RUN_ROUTES } from "./fake-check-run-routes.js";
import { PR_CONTEXT_ROUTES } from "./fake-github-pr-routes.js";
import { ISSUE_ROUTES } from "./fake-issue-routes.js";
import { PULL_ROUTES } from "./fake-pull-routes.js";
import { REPO_ROUTES } from "./fake-repo-routes.js";
import {
  createRouteTable,
  notFound,
  type RepoCall,
  type RouteContext,
  type RouteRequest,
  type RouteResponse,
} from "./fake-route-table.js";
import { failure } from "./github-shapes.js";

export type { RouteContext, RouteRequest, RouteResponse } from "./fake-route-table.js";

/**
 * The REST subset aider-bot calls, as two route tables: outside a repository (fake-app-routes.ts), and under
 * `/repos/{owner}/{repo}/` by concept (PR context, the repository's git data, issues and comments, pull requests,
 * Check Runs). The first route that fits answers; anything else is a 404 the tests can see in `calls`.
 */
const findAppRoute = createRouteTable(APP_ROUTES);
const findRepoRoute = createRouteTable<RepoCall>([
  ...PR_CONTEXT_ROUTES,
  ...REPO_ROUTES,
  ...ISSUE_ROUTES,
  ...PULL_ROUTES,
  ...CHECK_RUN_ROUTES,
]);

/** Answer one REST call: a route outside a repository, else one of the repository's (after GitHub's size limits). */
export async function routeRequest(ctx: RouteContext, req: RouteRequest): Promise<RouteResponse> {
  const { method, segments } = req;
  const app = findAppRoute(method, segments);
  if (app) return app.route.handle({ ctx, req, match: app.match });
  const [root, owner, name, ...rest] = segments;
  if (root !== "repos" || owner === undefined || name === undefined) return notFound;
  const repo = ctx.state.repo(owner, name);
  if (!repo) return notFound;
  if (method === "POST" || method === "PATCH") {
    const refused = overLimit(req.body);
    if (refused) return refused;
  }
  const found = findRepoRoute(method, rest);
  return found ? found.route.handle({ ctx, req, repo, match: found.match }) : notFound;
}

/** GitHub's limits on what we write: 65,536 characters for a comment, issue or PR body, 65,535 for Check Run output. */
const BODY_LIMIT = 65_536;
const CHECK_OUTPUT_LIMIT = 65_535;

/** The 422 GitHub answers when a written text is over its limit, or null when everything fits. */
function overLimit(body: Record<string, unknown>): RouteResponse | null {
  if (typeof body.body === "string" && body.body.length > BODY_LIMIT) {
    const error = {
      resource: "IssueComment",
      code: "unprocessable",
      field: "data",
      message: "Body is too long (maximum is 65536 characters)",
    };
    return failure(422, "Validation Failed", { errors: [error] });
  }
  const output = body.output as { summary?: unknown; text?: unknown } | undefined;
  for (const field of ["summary", "text"] as const) {
    const v = output?.[field];
    if (typeof v === "string" && v.length > CHECK_OUTPUT_LIMIT) {
      const message = `Only ${CHECK_OUTPUT_LIMIT} characters are allowed; ${v.length} were supplied (output.${field}).`;
      // GitHub's schema validation says what failed in the message itself (`validation-error` has no string errors).
      return failure(422, `Invalid request.\n\n${message}`);
    }
  }
  return null;
}
