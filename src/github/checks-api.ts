import type { components } from "@octokit/openapi-types";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";
import { readPages } from "./read-pages.js";

/** A check run as GitHub describes it (`GET /repos/{owner}/{repo}/commits/{ref}/check-runs`). */
export type CheckRunData = components["schemas"]["check-run"];
/** One annotation of a check run (`GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations`). */
export type CheckAnnotationData = components["schemas"]["check-annotation"];

/** The latest check runs of a commit (100 a page, up to `maxPages` pages). */
export async function listCheckRunsForRef(
  api: GitHubClient,
  args: RepoRef & { ref: string; maxPages: number },
): Promise<{ items: CheckRunData[]; truncated: boolean }> {
  const pages = api.paginate.iterator(api.rest.checks.listForRef, {
    owner: args.owner,
    repo: args.repo,
    ref: args.ref,
    filter: "latest",
    per_page: 100,
  });
  return readPages(`Listing the check runs of ${args.owner}/${args.repo}@${args.ref}`, pages, args.maxPages);
}

/** The first `perPage` annotations of a check run. */
export async function listCheckRunAnnotations(
  api: GitHubClient,
  args: RepoRef & { checkRunId: number; perPage: number },
): Promise<CheckAnnotationData[]> {
  const { data } = await callGitHub(
    `Reading the annotations of check run ${args.checkRunId} on ${args.owner}/${args.repo}`,
    () =>
      api.rest.checks.listAnnotations({
        owner: args.owner,
        repo: args.repo,
        check_run_id: args.checkRunId,
        per_page: args.perPage,
      }),
  );
  return data;
}

/**
 * A GitHub Actions job's whole log as text. GitHub answers with a redirect to a short-lived address, which Octokit
 * follows; the log comes back as text or as bytes depending on the content type it is served with.
 */
export async function readJobLog(api: GitHubClient, args: RepoRef & { jobId: number }): Promise<string> {
  const { data } = await callGitHub(`Reading the log of job ${args.jobId} on ${args.owner}/${args.repo}`, () =>
    api.rest.actions.downloadJobLogsForWorkflowRun({ owner: args.owner, repo: args.repo, job_id: args.jobId }),
  );
  // The typed response describes no body (GitHub documents only the redirect): read it as what it is.
  const body: unknown = data;
  if (typeof body === "string") return body;
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  return String(body ?? "");
}
