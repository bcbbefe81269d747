import type { RepoConfig } from "../../config/repo-config.js";
import { describeMode, prRunSpec, type PrMode } from "../../context/pr-run-spec.js";
import type { CheckSuiteEvent } from "../../edge/bot-event.js";
import { jobKey } from "../../jobs/job.js";
import { renderStage } from "../../report/render-status.js";
import type { RunJobData } from "../../run/run-job-data.js";
import { resolveSettings } from "../../run/prepare/resolve-settings.js";
import type { RunRequest } from "../../run/run-request.js";
import type { AutofixDecision } from "../decide-autofix.js";
import type { HandleResult } from "../triage-services.js";
import type { ActDeps } from "./act-deps.js";

type Fix = Extract<AutofixDecision, { kind: "fix" }> & { config: RepoConfig };

/**
 * A `fix-ci` run of this round: its request (unless the PR's head moved on), the "queued" status comment and the run
 * job. The status comment is found again by the job id's marker, so a redelivered suite edits it instead of adding
 * one; the engine's dedupe by job id then keeps the run to one.
 */
export async function enqueueAutofix(event: CheckSuiteEvent, fix: Fix, ctx: ActDeps): Promise<HandleResult> {
  const built = await buildFixRequest(event, fix, ctx);
  if (!built.ok) return { kind: "ignored", reason: built.reason };
  const request = built.value;
  const { owner, repo } = request;
  const statusCommentId = await ctx.github.ensureStatusComment({
    issueNumber: fix.pull,
    jobId: request.jobId,
    botLogin: ctx.botLogin,
    body: renderStage("queued", request),
  });
  const context: RunJobData = {
    req: request,
    statusCommentId,
    reactTo: { kind: "issue", number: fix.pull },
    webUrl: event.repository.webUrl,
    command: fix.config.trigger.command,
  };
  const queued = await ctx.services.runs.enqueue({
    id: request.jobId,
    key: jobKey(owner, repo, fix.pull),
    installationId: request.installationId,
    kind: "run",
    data: context,
  });
  ctx.log.info({ job: request.jobId, round: fix.round, queued }, "automatic CI fix enqueued");
  return queued
    ? { kind: "enqueued", jobId: request.jobId, context }
    : { kind: "ignored", reason: "duplicate delivery" };
}

/** The `fix-ci` run request for this round, unless the PR's head moved on or the settings are refused. */
async function buildFixRequest(
  event: CheckSuiteEvent,
  fix: Fix,
  { github, services, botLogin }: ActDeps,
): Promise<{ ok: true; value: RunRequest } | { ok: false; reason: string }> {
  const { owner, name: repo, cloneUrl, defaultBranch } = event.repository;
  const { suite } = event;
  const { pull, config } = fix;
  const pr = await github.getPullRequest(pull);
  // The head moved on since the suite ran (someone pushed): that commit's own suite decides.
  if (pr.head.sha !== suite.headSha)
    return { ok: false, reason: "the pull request's head moved on since this check suite" };
  const resolved = resolveSettings(config, { files: [] }, services.defaults);
  if (!resolved.ok) return { ok: false, reason: resolved.message };
  const mode: PrMode = {
    kind: "fix-ci",
    extra: "",
    autofix: { round: fix.round, maxRounds: config.ci.max_rounds, sha: suite.headSha },
  };
  const description = `${pr.title ?? ""}\n\n${pr.body ?? ""}`.trim();
  return {
    ok: true,
    value: {
      // No ':' in a job id (BullMQ refuses it); the commit makes it unique per round.
      jobId: `autofix-${owner}.${repo}-${pull}-${suite.headSha.slice(0, 12)}`,
      deliveryId: event.delivery,
      owner,
      repo,
      installationId: event.installationId,
      cloneUrl,
      defaultBranch,
      target: {
        kind: "pull-request",
        number: pull,
        headRef: pr.head.ref,
        headSha: pr.head.sha,
        headCloneUrl: String(pr.head.repo?.clone_url ?? cloneUrl),
        isFork: pr.head.repo?.full_name !== `${owner}/${repo}`,
      },
      verb: "run",
      message: describeMode(mode),
      untrustedContext: [{ label: `pull request #${pull}: title and description`, text: description }],
      files: [],
      // Nobody asked: the bot is the requester, so no one is named co-author or asked for review.
      requester: { login: botLogin },
      settings: resolved.value,
      context: prRunSpec(config, mode),
    },
  };
}
