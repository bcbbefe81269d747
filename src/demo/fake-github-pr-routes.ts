import type { Exec } from "../exec/types.js";
import type { FakeGitHubState, FakeRepo } from "./fake-github-state.js";
import { prState } from "./fake-pr-state.js";

export interface PrRouteContext {
  state: FakeGitHubState;
  exec: Exec;
  bareDir(repo: FakeRepo): string;
  apiUrl: string;
  webUrl: string;
}

type Response = { status: number; json?: unknown; text?: string; headers?: Record<string, string> };

/**
 * The pull-request context routes of the fake (PR files, check runs of a ref, annotations, Actions job logs and the
 * log URL they redirect to), in GitHub's documented shapes. Null when the route is not one of these.
 */
export async function routePrContext(
  ctx: PrRouteContext,
  repo: FakeRepo,
  method: string,
  rest: string[],
  query: URLSearchParams,
): Promise<Response | null> {
  if (method !== "GET") return null;
  const page = Number(query.get("page") ?? 1);
  const perPage = Number(query.get("per_page") ?? 30);
  const slice = <T>(all: T[]) => all.slice((page - 1) * perPage, page * perPage);

  if (rest[0] === "pulls" && rest[2] === "files" && rest.length === 3) {
    const pull = repo.issues.get(Number(rest[1]))?.pull;
    if (!pull) return { status: 404, json: { message: "Not Found" } };
    return { status: 200, json: slice(await prFiles(ctx, repo, pull.base, pull.head)) };
  }
  if (rest[0] === "commits" && rest[2] === "check-runs") {
    const ref = decodeURIComponent(rest[1]!);
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
    return { status: 200, json: { total_count: runs.length, check_runs: slice(runs) } };
  }
  if (rest[0] === "check-runs" && rest[2] === "annotations") {
    const extra = prState(repo).checkExtras.get(Number(rest[1]));
    return extra
      ? {
          status: 200,
          json: slice(
            extra.annotations.map((a) => ({ ...a, blob_href: "", raw_details: null, title: a.title ?? null })),
          ),
        }
      : { status: 404, json: { message: "Not Found" } };
  }
  if (rest[0] === "actions" && rest[1] === "jobs" && rest[3] === "logs") {
    const s = prState(repo);
    if (!s.actionsReadable) return { status: 403, json: { message: "Resource not accessible by integration" } };
    if (!s.jobLogs.has(Number(rest[2]))) return { status: 404, json: { message: "Not Found" } };
    // GitHub answers 302 to a short-lived storage URL; the fake serves it itself.
    return {
      status: 302,
      headers: { location: `${ctx.apiUrl}/_fake/job-logs/${repo.owner}/${repo.name}/${rest[2]}?sig=fake` },
      text: "",
    };
  }
  return null;
}

/** The short-lived log URL the job-logs route redirects to (no auth needed, as on GitHub's storage). */
export function routeJobLogDownload(state: FakeGitHubState, segments: string[]): Response | null {
  if (segments[0] !== "_fake" || segments[1] !== "job-logs") return null;
  const repo = state.repo(segments[2] ?? "", segments[3] ?? "");
  const log = repo ? prState(repo).jobLogs.get(Number(segments[4])) : undefined;
  return log === undefined ? { status: 404, text: "BlobNotFound" } : { status: 200, text: log };
}

async function resolve(ctx: PrRouteContext, repo: FakeRepo, ref: string): Promise<string | null> {
  const r = await ctx.exec.run({
    command: "git",
    args: ["rev-parse", "--verify", `${ref}^{commit}`],
    cwd: ctx.bareDir(repo),
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** `GET /pulls/{n}/files` computed with git from the bare repository (three-dot diff, as GitHub shows). */
async function prFiles(ctx: PrRouteContext, repo: FakeRepo, base: string, head: string) {
  const range = `refs/heads/${base}...refs/heads/${head}`;
  const cwd = ctx.bareDir(repo);
  const names = await ctx.exec.run({ command: "git", args: ["diff", "--name-status", "-M", range], cwd });
  const out = [];
  for (const line of names.stdout.split("\n").filter(Boolean)) {
    const [code, a, b] = line.split("\t") as [string, string, string | undefined];
    const path = b ?? a;
    const patch = await ctx.exec.run({ command: "git", args: ["diff", range, "--", ...(b ? [a, b] : [a])], cwd });
    const body = patch.stdout.slice(Math.max(0, patch.stdout.indexOf("@@")));
    const additions = body.split("\n").filter((l) => l.startsWith("+")).length;
    const deletions = body.split("\n").filter((l) => l.startsWith("-")).length;
    const status = { A: "added", D: "removed", M: "modified", R: "renamed", C: "copied" }[code[0] as "A"] ?? "changed";
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
