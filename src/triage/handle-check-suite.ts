import { parseRepoConfig } from "../config/repo-config.js";
import { ensureComment } from "../github/ensure-comment.js";
import { ensureStatusComment } from "../github/ensure-status-comment.js";
import type { JobContext } from "../run/job-context.js";
import type { AppServices, EventContext, HandleResult } from "./event-context.js";
import { renderStage } from "../report/render-status.js";
import { jobKey } from "../jobs/job.js";
import { resolveSettings } from "../run/resolve-settings.js";
import type { RunRequest } from "../run/run-request.js";
import { countAutofixRounds } from "../report/autofix-rounds.js";
import { decideAutofix } from "./decide-autofix.js";
import { fetchIssueComments, priorRunsFrom } from "../context/fetch/fetch-issue-comments.js";
import { describeMode, prRunSpec, type PrMode } from "../context/pr-run-spec.js";
import { pushedByBot, readCheckSuite } from "./read-check-suite.js";

const FAILED = new Set(["failure", "timed_out"]);

/** One note per pull request when the automatic fixes stop: a redelivery or a later suite edits it. */
export const autofixStopMarker = (pull: number) => `<!-- aider-bot:autofix-stop:${pull} -->`;

/**
 * `check_suite.completed` (issue #14, `ci.autofix`): when checks fail on a commit the bot pushed, queue a `fix-ci`
 * run by itself, at most `ci.max_rounds` per pull request (counted from its own status comments), and say so once
 * when the limit is reached. Cheap checks come first: most suites pass, and most repositories never opt in.
 */
export async function handleCheckSuite(ctx: EventContext, services: AppServices): Promise<HandleResult> {
  const ignored = (reason: string): HandleResult => ({ kind: "ignored", reason });
  const payload = ctx.payload as {
    action?: string;
    repository?: {
      name?: string;
      owner?: { login?: string };
      clone_url?: string;
      html_url?: string;
      default_branch?: string;
    };
    installation?: { id?: number };
    check_suite?: { app?: { slug?: string } };
  };
  if (payload.action !== "completed") return ignored(`check_suite.${payload.action} is not handled`);
  const suite = readCheckSuite(ctx.payload);
  if (!suite) return ignored("no check suite in payload");
  if (!suite.conclusion || !FAILED.has(suite.conclusion))
    return ignored(`check suite concluded ${suite.conclusion ?? "without a conclusion"}`);
  const owner = payload.repository?.owner?.login;
  const repo = payload.repository?.name;
  if (!owner || !repo) return ignored("no repository in payload");
  let raw: unknown;
  try {
    raw = await ctx.loadConfig();
  } catch (error) {
    // A config that cannot be read cannot have opted in; the next command on the PR reports the problem.
    return ignored(`config unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseRepoConfig(raw);
  if (!parsed.ok) return ignored("invalid .github/aider.yml");
  const config = parsed.config;
  if (!config.ci.autofix) return ignored("ci.autofix is off");
  const pull = suite.pullNumbers[0];
  if (pull === undefined) return ignored("the commit belongs to no open pull request of this repository");

  const botLogin = await services.botLogin();
  const botAppId = await services.botAppId?.();
  const where = { owner, repo };
  const { comments } = await fetchIssueComments(ctx.api, where, pull);
  const rounds = countAutofixRounds(comments, botLogin, suite.headSha);
  if (rounds.alreadyForSha) return ignored("an automatic fix already ran for this commit");
  // Our own check run's suite must never start a fix of itself; the App id is known from the payload's app slug too.
  const ownSuite =
    payload.check_suite?.app?.slug !== undefined &&
    `${payload.check_suite.app.slug}[bot]`.toLowerCase() === botLogin.toLowerCase();
  const decision = decideAutofix({
    autofix: config.ci.autofix,
    maxRounds: config.ci.max_rounds,
    conclusion: suite.conclusion,
    suiteAppId: suite.suiteAppId,
    botAppId: ownSuite ? suite.suiteAppId : (botAppId ?? -1),
    headPushedByBot: pushedByBot(priorRunsFrom(comments, botLogin), suite.headSha),
    pullNumbers: suite.pullNumbers,
    roundsDone: rounds.rounds,
  });
  const log = ctx.log.child({ delivery: ctx.id, repo: `${owner}/${repo}`, number: pull });
  if (decision.kind === "skip") return ignored(decision.reason);
  if (decision.kind === "stop") {
    const marker = autofixStopMarker(pull);
    await ensureComment(ctx.api, {
      ...where,
      issueNumber: pull,
      marker,
      botLogin,
      body: `${marker}\n🛑 ${decision.message}`,
    });
    log.info({ rounds: rounds.rounds }, "automatic CI fixes stopped");
    return { kind: "replied", reason: "autofix limit reached" };
  }

  // No ':' in a job id (BullMQ refuses it); the commit makes it unique per round.
  const jobId = `autofix-${owner}.${repo}-${pull}-${suite.headSha.slice(0, 12)}`;
  const pr = (await ctx.api.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...where, pull_number: pull }))
    .data as {
    title?: string;
    body?: string | null;
    head: { ref: string; sha: string; repo?: { clone_url?: string; full_name?: string } | null };
  };
  // The head moved on since the suite ran (someone pushed): that commit's own suite decides.
  if (pr.head.sha !== suite.headSha) return ignored("the pull request's head moved on since this check suite");
  const resolved = resolveSettings(config, { files: [] }, services.defaults);
  if (!resolved.ok) return ignored(resolved.message);
  const mode: PrMode = {
    kind: "fix-ci",
    extra: "",
    autofix: { round: decision.round, maxRounds: config.ci.max_rounds, sha: suite.headSha },
  };
  const cloneUrl = String(payload.repository?.clone_url ?? "");
  const request: RunRequest = {
    jobId,
    deliveryId: ctx.id,
    owner,
    repo,
    installationId: Number(payload.installation?.id ?? 0),
    cloneUrl,
    defaultBranch: String(payload.repository?.default_branch ?? "main"),
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
    untrustedContext: [
      { label: `pull request #${pull}: title and description`, text: `${pr.title ?? ""}\n\n${pr.body ?? ""}`.trim() },
    ],
    files: [],
    // Nobody asked: the bot is the requester, so no one is named co-author or asked for review.
    requester: { login: botLogin },
    settings: resolved.value,
    context: prRunSpec(config, mode),
  };
  // The status comment is found again by the job id's marker, so a redelivered suite edits it instead of adding one;
  // the engine's dedupe by job id then keeps the run to one.
  const statusCommentId = await ensureStatusComment(ctx.api, {
    ...where,
    issueNumber: pull,
    jobId,
    botLogin,
    body: renderStage("queued", request),
  });
  const context: JobContext = {
    req: request,
    statusCommentId,
    reactTo: { kind: "issue", number: pull },
    webUrl: String(payload.repository?.html_url ?? ""),
    command: config.trigger.command,
  };
  const queued = await services.runs.enqueue({
    id: jobId,
    key: jobKey(owner, repo, pull),
    installationId: request.installationId,
    kind: "run",
    data: context,
  });
  log.info({ job: jobId, round: decision.round, queued }, "automatic CI fix enqueued");
  return queued ? { kind: "enqueued", jobId, context } : ignored("duplicate delivery");
}
