import { stripAnsi } from "../../checks/strip-ansi.js";
import { httpStatus } from "../../github/github-api.js";
import { fail, ok, type Result } from "../../result.js";
import type { GitHubReader, RepoRef } from "./github-reader.js";

/** The log's tail; or why it could not be read, the message being the note shown beside the check. */
export type JobLog = Result<string, "no-permission" | "expired" | "unreadable">;

/**
 * The end of a GitHub Actions job's log (`GET …/actions/jobs/{id}/logs` answers with a redirect to a short-lived URL;
 * Octokit follows it). Needs `actions: read`: without it (403/404) the note says so and the run goes on.
 * Timestamps and ANSI colours are removed; the last `maxLines` lines are kept (the error is at the end).
 */
export async function fetchJobLog(api: GitHubReader, where: RepoRef, jobId: number, maxLines = 150): Promise<JobLog> {
  try {
    const { data } = await api.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
      ...where,
      job_id: jobId,
    });
    const text =
      typeof data === "string"
        ? data
        : data instanceof ArrayBuffer
          ? new TextDecoder().decode(data)
          : String(data ?? "");
    const lines = stripAnsi(text)
      .split("\n")
      .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z ?/, ""));
    while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
    return ok(lines.slice(-maxLines).join("\n"));
  } catch (error) {
    const status = httpStatus(error);
    if (status === 403 || status === 404) {
      return fail(
        "no-permission",
        `the job log could not be read (HTTP ${status}); grant the App the \`actions: read\` permission to include log tails`,
      );
    }
    if (status === 410) return fail("expired", "the job log has expired (HTTP 410)");
    return fail(
      "unreadable",
      `the job log could not be read (${status ? `HTTP ${status}` : (error as Error).message})`,
    );
  }
}
