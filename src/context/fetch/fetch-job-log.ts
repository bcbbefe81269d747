import { stripAnsi } from "../../checks/strip-ansi.js";
import { readJobLog } from "../../github/checks-api.js";
import { httpStatus } from "../../github/github-api.js";
import type { GitHubClient, RepoRef } from "../../github/github-client.js";
import { fail, ok, type Result } from "../../result.js";

/** The log's tail; or why it could not be read, the message being the note shown beside the check. */
export type JobLog = Result<string, "no-permission" | "expired" | "unreadable">;

/**
 * The end of a GitHub Actions job's log (`GET …/actions/jobs/{id}/logs` answers with a redirect to a short-lived URL;
 * Octokit follows it). Needs `actions: read`: without it (403/404) the note says so and the run goes on.
 * Timestamps and ANSI colours are removed; the last `maxLines` lines are kept (the error is at the end).
 */
export async function fetchJobLog(api: GitHubClient, where: RepoRef, jobId: number, maxLines = 150): Promise<JobLog> {
  try {
    const text = await readJobLog(api, { ...where, jobId });
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
      `the job log could not be read (${status ? `HTTP ${status}` : error instanceof Error ? error.message : String(error)})`,
    );
  }
}
