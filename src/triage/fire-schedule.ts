import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { RunJobData, RunQueue } from "../run/run-job-data.js";
import { runMarker } from "../github/markers.js";
import { renderStage } from "../report/render-status.js";
import { jobKey } from "../jobs/job.js";
import { resolveSettings } from "../run/prepare/resolve-settings.js";
import type { RunRequest } from "../run/run-request.js";
import { issueBranchName } from "../run/prepare/branch-name.js";
import { decideTick } from "./decide-tick.js";
import type { Schedule, ScheduleTarget } from "./schedule-key.js";

/** What one firing did: started a run (on its tracking issue), found it started already, or skipped the tick. */
export type FireResult =
  | { kind: "started"; issue: number; jobId: string }
  | { kind: "duplicate"; issue: number }
  | { kind: "skipped"; issue: number; pr: number };

/** {@link fireScheduleDetailed}, answering only whether a run was queued. */
export async function fireSchedule(args: Parameters<typeof fireScheduleDetailed>[0]): Promise<boolean> {
  return (await fireScheduleDetailed(args)).kind === "started";
}

/**
 * Start one scheduled run. It works like an issue run, on a tracking issue the bot keeps per schedule entry (found
 * again by a hidden marker): status comments go there, and the pull request says `Fixes #n`. A later tick while that
 * PR is open adds its commit to the same branch and PR.
 */
export async function fireScheduleDetailed(args: {
  api: GitHubClient;
  target: ScheduleTarget;
  schedule: Schedule;
  key: string;
  botLogin: string;
  runs: RunQueue;
  defaults: { model: string; weakModel?: string; fallbackModels?: string[] };
  now: Date;
  /** "Run now" from the dashboard: its own job id (from the edit's delivery), and no skip for an open PR. */
  manual?: { jobId: string };
}): Promise<FireResult> {
  const { api, target, schedule, key } = args;
  const where = { owner: target.owner, repo: target.repo };
  // Bound once to the schedule's repository: every call below is about it.
  const github = RepoGitHub.create({ octokit: api, ...where });
  const marker = `<!-- aider-bot:schedule:${key} -->`;
  let issue = await github.findIssueByMarker({ creator: args.botLogin, marker, state: "open" });
  const resolved = resolveSettings(target.config, { files: schedule.files }, args.defaults);
  if (!resolved.ok) throw new Error(resolved.message);
  if (issue && !args.manual) {
    // The last run's pull request (the tracking issue's branch) still open: this tick waits unless `stack: true`.
    const branch = issueBranchName(resolved.value.branchPrefix, issue.number, issue.title);
    const open = schedule.stack ? null : await github.findPullRequestForBranch(branch);
    const decision = decideTick({ stack: schedule.stack, openPr: open?.number ?? null });
    if (!decision.fire) return { kind: "skipped", issue: issue.number, pr: decision.pr };
  }
  if (!issue) {
    const title = `aider-bot schedule: ${(schedule.message.split("\n", 1)[0] ?? "").slice(0, 80)}`;
    const body = `${marker}\nThis issue tracks the scheduled request \`${schedule.cron}\` from \`.github/aider.yml\`:\n\n> ${schedule.message}\n\nEach run reports here; its pull request closes this issue when merged.`;
    issue = await github.createIssue(title, body);
  }
  const jobId = args.manual?.jobId ?? `${key}@${args.now.toISOString()}`;
  const request: RunRequest = {
    jobId,
    deliveryId: jobId,
    ...where,
    installationId: target.installationId,
    cloneUrl: target.cloneUrl,
    defaultBranch: schedule.branch ?? target.defaultBranch,
    target: { kind: "issue", number: issue.number, title: issue.title },
    verb: "run",
    message: schedule.message,
    untrustedContext: [],
    files: schedule.files,
    requester: { login: args.botLogin, isBot: true },
    settings: resolved.value,
    ...(target.language ? { language: target.language } : {}),
  };
  if (await github.findComment({ issueNumber: issue.number, marker: runMarker(jobId) }))
    return { kind: "duplicate", issue: issue.number };
  const statusCommentId = await github.ensureComment({
    issueNumber: issue.number,
    marker: runMarker(jobId),
    botLogin: args.botLogin,
    body: renderStage("queued", request),
  });
  const context: RunJobData = {
    req: request,
    statusCommentId,
    reactTo: { kind: "issue", number: issue.number },
    webUrl: target.webUrl ?? target.cloneUrl.replace(/\.git$/, ""),
    command: target.config.trigger.command,
  };
  const queued = await args.runs.enqueue({
    id: jobId,
    key: jobKey(target.owner, target.repo, issue.number),
    installationId: target.installationId,
    kind: "schedule",
    data: context,
  });
  return queued ? { kind: "started", issue: issue.number, jobId } : { kind: "duplicate", issue: issue.number };
}
