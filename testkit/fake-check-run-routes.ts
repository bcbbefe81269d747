import type { FakeCheckRun } from "./fake-github-state.js";
import { bearerToken, notFound, type RepoCall, type Route, type RouteResponse } from "./fake-route-table.js";

/**
 * The fake's Check Run routes the bot writes through: create, read, update — each, as on GitHub, refused (403) to an
 * installation token that does not carry `checks` (write for create and update).
 */
export const CHECK_RUN_ROUTES: readonly Route<RepoCall>[] = [
  { method: "POST", path: "check-runs", handle: needsChecks("write", createCheckRun) },
  { method: "GET", path: "check-runs/:id", handle: needsChecks("read", checkRunById) },
  { method: "PATCH", path: "check-runs/:id", handle: needsChecks("write", checkRunById) },
];

const FORBIDDEN: RouteResponse = {
  status: 403,
  json: {
    message: "Resource not accessible by integration",
    documentation_url: "https://docs.github.com/rest/checks/runs",
  },
};

/** `handle`, for a token this fake minted only when it carries `checks` at `level` (other tokens pass). */
function needsChecks(
  level: "read" | "write",
  handle: (call: RepoCall) => RouteResponse,
): (call: RepoCall) => RouteResponse {
  return (call) => {
    const permissions = call.ctx.state.tokenPermissions(bearerToken(call.req.authorization));
    const has = permissions?.checks;
    if (permissions && has !== "write" && (level === "write" || has !== "read")) return FORBIDDEN;
    return handle(call);
  };
}

function createCheckRun({ ctx, req, repo }: RepoCall): RouteResponse {
  const { body } = req;
  const run: FakeCheckRun = {
    id: ctx.state.id(),
    name: String(body.name),
    headSha: String(body.head_sha),
    status: String(body.status ?? "queued"),
    conclusion: body.conclusion as string | undefined,
    output: body.output as FakeCheckRun["output"],
  };
  repo.checkRuns.push(run);
  return { status: 201, json: { id: run.id, ...body } };
}

function checkRunById({ req, repo, match }: RepoCall): RouteResponse {
  const run = repo.checkRuns.find((c) => c.id === Number(match.param("id")));
  if (!run) return notFound;
  const { body } = req;
  if (req.method === "PATCH")
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
