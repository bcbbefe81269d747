import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { RunJobData } from "../run/run-job-data.js";
import { renderInterrupted, type Interruption } from "./render-status.js";
import { targetLabel } from "../run/run-target.js";

/**
 * Tell a job's requester what happened when its run cannot: the status comment says so, and a job given up (lost
 * worker, crash) also gets 😕 and its Check Run completed, so nothing stays "in progress". A job that will run again
 * (shutdown) keeps its Check Run for the re-run to complete. Each write is attempted even if another fails.
 */
export async function reportInterrupted(api: GitHubClient, job: RunJobData, why: Interruption): Promise<void> {
  const { owner, repo } = job.req;
  const body = renderInterrupted(why, job.req, job.command);
  // Bound to the job's repository: every write below is about it.
  const github = RepoGitHub.create({ octokit: api, owner, repo });
  const writes: Promise<unknown>[] = [github.updateComment(job.statusCommentId, body)];
  if (why.kind === "worker-lost" || why.kind === "crashed") {
    writes.push(github.addReaction(job.reactTo, "confused"));
    if (job.checkRunId !== undefined) {
      writes.push(
        github.completeCheckRun({
          id: job.checkRunId,
          conclusion: "failure",
          title: "Interrupted",
          summary: body,
        }),
      );
    }
  }
  const failed = (await Promise.allSettled(writes)).filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length)
    throw new AggregateError(
      failed.map((f) => f.reason as unknown),
      `could not report the interrupted job ${job.req.jobId} on ${owner}/${repo} ${targetLabel(job.req.target)}`,
    );
}
