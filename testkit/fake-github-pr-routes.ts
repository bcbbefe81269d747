import type { FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import { prState } from "./fake-pr-state.js";
import { notFound, type RepoCall, type Route, type RouteContext, type RouteResponse } from "./fake-route-table.js";
import { answer, failure, type Shape } from "./github-shapes.js";

/**
 * The pull-request context routes of the fake (PR files, check runs of a ref, annotations, Actions job logs and the
 * log URL they redirect to), in GitHub's documented shapes.
 */
export const PR_CONTEXT_ROUTES: readonly Route<RepoCall>[] = [
  { method: "GET", path: "pulls/:number/files", handle: pullFiles },
  { method: "GET", path: "commits/:ref/check-runs", handle: checkRunsOfRef },
  { method: "GET", path: "check-runs/:id/annotations", handle: annotations },
  { method: "GET", path: "actions/jobs/:id/logs", handle: jobLogs },
];

/** `page` and `per_page` of a list call, as a slicer (GitHub's defaults: page 1, 30 per page). */
function pageOf(query: URLSearchParams): <T>(all: T[]) => T[] {
  const page = Number(query.get("page") ?? 1);
  const perPage = Number(query.get("per_page") ?? 30);
  return (all) => all.slice((page - 1) * perPage, page * perPage);
}

async function pullFiles({ ctx, req, repo, match }: RepoCall): Promise<RouteResponse> {
  const pull = repo.issues.get(Number(match.param("number")))?.pull;
  if (!pull) return notFound;
  return answer("pulls/list-files", 200, pageOf(req.query)(await prFiles(ctx, repo, pull.base, pull.head)));
}

async function checkRunsOfRef({ ctx, req, repo, match }: RepoCall): Promise<RouteResponse> {
  const ref = decodeURIComponent(match.param("ref"));
  const sha = await resolve(ctx, repo, ref);
  const runs = repo.checkRuns
    .filter((r) => r.headSha === ref || r.headSha === sha)
    .map((r) => {
      const extra = prState(repo).checkExtras.get(r.id);
      return {
        id: r.id,
        name: r.name,
        head_sha: r.headSha,
        status: r.status,
        conclusion: r.conclusion ?? null,
        details_url: extra?.detailsUrl ?? null,
        app: { slug: extra?.appSlug ?? ctx.state.botLogin.replace("[bot]", "") },
        output: {
          title: r.output?.title ?? null,
          summary: r.output?.summary ?? null,
          text: r.output?.text ?? null,
          annotations_count: extra?.annotations.length ?? 0,
        },
      };
    });
  return answer("checks/list-for-ref", 200, { total_count: runs.length, check_runs: pageOf(req.query)(runs) });
}

function annotations({ req, repo, match }: RepoCall): RouteResponse {
  const extra = prState(repo).checkExtras.get(Number(match.param("id")));
  if (!extra) return notFound;
  const list = extra.annotations.map((a) => ({ ...a, blob_href: "", raw_details: null, title: a.title ?? null }));
  return answer("checks/list-annotations", 200, pageOf(req.query)(list));
}

function jobLogs({ ctx, repo, match }: RepoCall): RouteResponse {
  const s = prState(repo);
  const job = match.param("id");
  if (!s.actionsReadable) return failure(403, "Resource not accessible by integration");
  if (!s.jobLogs.has(Number(job))) return notFound;
  // GitHub answers 302 to a short-lived storage URL; the fake serves it itself.
  return {
    status: 302,
    headers: { location: `${ctx.apiUrl}/_fake/job-logs/${repo.owner}/${repo.name}/${job}?sig=fake` },
    text: "",
  };
}

/** The short-lived log URL the job-logs route redirects to (no auth needed, as on GitHub's storage). */
export function routeJobLogDownload(state: FakeGitHubState, owner: string, name: string, job: number): RouteResponse {
  const repo = state.repo(owner, name);
  const log = repo ? prState(repo).jobLogs.get(job) : undefined;
  return log === undefined ? { status: 404, text: "BlobNotFound" } : { status: 200, text: log };
}

async function resolve(ctx: RouteContext, repo: FakeRepo, ref: string): Promise<string | null> {
  const r = await ctx.exec.run({
    command: "git",
    args: ["rev-parse", "--verify", `${ref}^{commit}`],
    cwd: ctx.bareDir(repo),
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** `GET /pulls/{n}/files` computed with git from the bare repository (three-dot diff, as GitHub shows). */
async function prFiles(ctx: RouteContext, repo: FakeRepo, base: string, head: string): Promise<Shape<"diff-entry">[]> {
  const range = `refs/heads/${base}...refs/heads/${head}`;
  const cwd = ctx.bareDir(repo);
  const names = await ctx.exec.run({ command: "git", args: ["diff", "--name-status", "-M", range], cwd });
  const out: Shape<"diff-entry">[] = [];
  for (const line of names.stdout.split("\n").filter(Boolean)) {
    const [code, a, b] = line.split("\t") as [string, string, string | undefined];
    const path = b ?? a;
    const patch = await ctx.exec.run({ command: "git", args: ["diff", range, "--", ...(b ? [a, b] : [a])], cwd });
    const body = patch.stdout.slice(Math.max(0, patch.stdout.indexOf("@@")));
    const additions = body.split("\n").filter((l) => l.startsWith("+")).length;
    const deletions = body.split("\n").filter((l) => l.startsWith("-")).length;
    const statuses = { A: "added", D: "removed", M: "modified", R: "renamed", C: "copied" } as const;
    const status = statuses[code[0] as keyof typeof statuses] ?? "changed";
    out.push({
      sha: "0".repeat(40),
      filename: path,
      status,
      additions,
      deletions,
      changes: additions + deletions,
      blob_url: "",
      raw_url: "",
      contents_url: "",
      ...(body.startsWith("@@") ? { patch: body.replace(/\n$/, "") } : {}),
      ...(b ? { previous_filename: a } : {}),
    });
  }
  return out;
}
