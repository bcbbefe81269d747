import type { CheckRunConclusion, CheckRunStatus, FakeCheckRun } from "./fake-github-state.js";
import { bearerToken, notFound, type RepoCall, type Route, type RouteResponse } from "./fake-route-table.js";
import { answer, failure } from "./github-shapes.js";

const STATUSES: readonly CheckRunStatus[] = ["queued", "in_progress", "completed", "waiting", "requested", "pending"];
const CONCLUSIONS: readonly CheckRunConclusion[] = [
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "timed_out",
  "action_required",
];

/** A written status or conclusion, or the 422 GitHub answers for one it does not have. */
function pick<T extends string>(field: string, allowed: readonly T[], value: unknown): T | undefined | RouteResponse {
  if (value === undefined || value === null) return undefined;
  const found = allowed.find((a) => a === value);
  return found ?? failure(422, `Invalid request.\n\n${JSON.stringify(value)} is not a valid value for ${field}.`);
}

/** A Check Run as GitHub answers for it (the fields the app reads). */
function checkRunJson(run: FakeCheckRun) {
  return {
    id: run.id,
    name: run.name,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion ?? null,
    output: {
      title: run.output?.title ?? null,
      summary: run.output?.summary ?? null,
      text: run.output?.text ?? null,
    },
  };
}

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
  const status = pick("status", STATUSES, body.status);
  const conclusion = pick("conclusion", CONCLUSIONS, body.conclusion);
  if (typeof status === "object") return status;
  if (typeof conclusion === "object") return conclusion;
  const run: FakeCheckRun = {
    id: ctx.state.id(),
    name: String(body.name),
    headSha: String(body.head_sha),
    status: status ?? "queued",
    ...(conclusion ? { conclusion } : {}),
    output: body.output as FakeCheckRun["output"],
  };
  repo.checkRuns.push(run);
  return answer("checks/create", 201, checkRunJson(run));
}

function checkRunById({ req, repo, match }: RepoCall): RouteResponse {
  const run = repo.checkRuns.find((c) => c.id === Number(match.param("id")));
  if (!run) return notFound;
  const { body } = req;
  if (req.method === "PATCH") {
    const status = pick("status", STATUSES, body.status);
    const conclusion = pick("conclusion", CONCLUSIONS, body.conclusion);
    if (typeof status === "object") return status;
    if (typeof conclusion === "object") return conclusion;
    Object.assign(run, {
      status: status ?? run.status,
      conclusion: conclusion ?? run.conclusion,
      output: body.output ?? run.output,
    });
  }
  return answer("checks/get", 200, checkRunJson(run));
}
