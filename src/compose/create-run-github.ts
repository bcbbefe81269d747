import type { CoderResult } from "../coder/types.js";
import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { RunGitHub } from "../run/run-ports.js";
import type { RunRequest } from "../run/run-request.js";
import type { RunJobData } from "../run/run-job-data.js";
import { threadNumber } from "../run/run-target.js";
import { closePlans, readPlan, writePlan } from "../report/plan-store.js";

/**
 * {@link RunGitHub} over an installation Octokit, bound to one job's {@link RunJobData}: its repository, issue or PR,
 * status comment and reaction subject, through the repository's {@link RepoGitHub} gateway (its GitHubError kinds
 * reach the run, which reports them). The publishing policy of the GitHub side lives here: how an issue's pull
 * request is worded (`Fixes #n`), and that bots are not asked to review.
 */
export function createRunGitHub(
  api: GitHubClient,
  /** Without a status comment and a reaction subject (a run on a branch with no thread), those writes do nothing. */
  job: Pick<RunJobData, "webUrl" | "checkRunId"> &
    Partial<Pick<RunJobData, "statusCommentId" | "reactTo">> &
    Partial<Pick<RunJobData, "command">> & {
      req: Pick<RunRequest, "owner" | "repo"> & Partial<Pick<RunRequest, "target">>;
    },
  token: () => Promise<string>,
  /** Where best-effort failures go (a review request GitHub refused for another reason than access). */
  log?: { warn(obj: object, msg: string): void },
  /** The App's login: its plan comments are the ones a new plan supersedes. */
  botLogin?: string,
  /** The client commits are made with (a token with `contents: write`); default `api`. */
  commitsApi: GitHubClient = api,
): RunGitHub {
  const { owner, repo } = job.req;
  const where = { owner, repo };
  const gh = RepoGitHub.create({ octokit: api, ...where });
  // Commits may need another client (a token with `contents: write`), bound to the same repository.
  const commits = commitsApi === api ? gh : RepoGitHub.create({ octokit: commitsApi, ...where });
  return {
    updateStatus: async (body) => {
      if (job.statusCommentId !== undefined) await gh.updateComment(job.statusCommentId, body);
    },
    react: async (content) => {
      if (job.reactTo) await gh.addReaction(job.reactTo, content);
    },
    // Started at triage when it could be: the run goes on with that one (a re-run after a crash too).
    startCheckRun: async (headSha) => job.checkRunId ?? (await gh.startCheckRun({ headSha })),
    finishCheckRun: (id, r) =>
      gh.completeCheckRun({
        id,
        conclusion: r.conclusion,
        title: r.title,
        summary: r.summary,
        ...(r.text ? { text: r.text } : {}),
      }),
    checkRunUrl: (id) => `${job.webUrl}/runs/${id}`,
    async tickPlan(commentId, done) {
      const plan = await readPlan(gh, commentId);
      if (plan) await writePlan(gh, plan, { ...plan.rec, done }, job.command ?? "aider");
    },
    async supersedeOlderPlans() {
      const number = job.req.target && threadNumber(job.req.target);
      if (number === undefined || !botLogin) return;
      await closePlans(gh, number, {
        botLogin,
        keep: job.statusCommentId,
        state: "superseded",
        command: job.command ?? "aider",
      });
    },
    async openPullRequest(pr) {
      // Idempotent: a re-run that already opened the PR gets it back (and asks nobody again).
      const made = await gh.ensurePullRequest({
        head: pr.branch,
        base: pr.base,
        draft: pr.draft,
        title: pullRequestTitle(pr.result, pr.issue.title),
        body: pullRequestBody(pr),
      });
      // Best effort: the requester may lack access; a bot (or the app, for schedules) is never asked.
      if (made.created && !pr.requester.isBot) {
        await gh
          .requestReview(made.number, pr.requester.login)
          .catch((error: unknown) =>
            log?.warn({ err: error, pull: made.number }, "review request failed (the pull request stands)"),
          );
      }
      return { number: made.number, url: made.url };
    },
    async replyToReviewComment(pullNumber, commentId, body) {
      // The final status carries the run marker: a retried job edits its reply instead of adding a second one.
      const marker = /<!-- aider-bot:run:[^>]*? -->/.exec(body)?.[0];
      if (marker) await gh.ensureReviewReply({ pullNumber, commentId, marker, body });
      else await gh.replyToReviewComment({ pullNumber, commentId, body });
    },
    installationToken: token,
    apiCommits: {
      create: (req, on) => (on ? commits.forRepository(on) : commits).createCommitOnBranch(req),
      createBranch: (branch, sha) => commits.createBranch(branch, sha),
    },
    commitUrl: (sha) => `${job.webUrl}/commit/${sha}`,
  };
}

function pullRequestTitle(result: CoderResult, issueTitle: string): string {
  return result.outcome === "changed" && result.commit ? result.commit.subject : `Fix: ${issueTitle}`.slice(0, 120);
}

function pullRequestBody(pr: { issue: { number: number }; requester: { login: string }; result: CoderResult }): string {
  const { result } = pr;
  const files =
    "editedFiles" in result
      ? result.editedFiles.map((f) => `- \`${f.path}\` (+${f.added} −${f.removed})`).join("\n")
      : "";
  return [
    `Fixes #${pr.issue.number}`,
    "",
    `Opened by aider-bot at the request of @${pr.requester.login}.`,
    files ? `\n**Files changed**\n${files}` : "",
    result.explanation
      ? `\n<details><summary>The model's explanation</summary>\n\n${result.explanation.slice(0, 20000)}\n\n</details>`
      : "",
  ].join("\n");
}
