import { stripAnsi } from "../../checks/strip-ansi.js";
import { GitHubError } from "../../github/github-error.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { rateLimitNote } from "./describe-failure.js";
import { fail, ok, type Result } from "../../result.js";

/** The log's tail; or why it could not be read, the message being the note shown beside the check. */
export type JobLog = Result<string, "no-permission" | "expired" | "unreadable">;

/**
 * The end of a GitHub Actions job's log (`GET …/actions/jobs/{id}/logs` answers with a redirect to a short-lived URL;
 * Octokit follows it). Needs `actions: read`: without it (`forbidden`, or the 404 GitHub answers instead) the note
 * says so and the run goes on; a 410 means the log has expired.
 * Timestamps and ANSI colours are removed; the last `maxLines` lines are kept (the error is at the end).
 */
export async function fetchJobLog(github: RepoGitHub, jobId: number, maxLines = 150): Promise<JobLog> {
  try {
    const text = await github.readJobLog(jobId);
    const lines = stripAnsi(text)
      .split("\n")
      .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z ?/, ""));
    while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
    return ok(lines.slice(-maxLines).join("\n"));
  } catch (error) {
    if (!(error instanceof GitHubError))
      return fail(
        "unreadable",
        `the job log could not be read (${error instanceof Error ? error.message : String(error)})`,
      );
    if (error.kind === "not-found" && error.status === 410)
      return fail("expired", "the job log has expired (HTTP 410)");
    if (error.kind === "forbidden" || error.kind === "not-found")
      return fail(
        "no-permission",
        `the job log could not be read (HTTP ${error.status}); grant the App the \`actions: read\` permission to include log tails`,
      );
    if (error.kind === "rate-limited")
      return fail("unreadable", `the job log could not be read: ${rateLimitNote(error)}`);
    return fail("unreadable", `the job log could not be read (HTTP ${error.status})`);
  }
}
