import { payloadField } from "../github/payload-field.js";
import { getPullRequest } from "../github/pull-request.js";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { ensureComment } from "../github/ensure-comment.js";
import { ensureStatusComment } from "../github/ensure-status-comment.js";
import type { JobContext } from "../run/job-context.js";
import type { AppServices, EventContext, HandleResult } from "./event-context.js";
import { renderStage } from "../report/render-status.js";
import { jobKey } from "../jobs/job.js";
import { resolveSettings } from "../run/prepare/resolve-settings.js";
import type { RunRequest } from "../run/run-request.js";
import { countAutofixRounds } from "../report/autofix-rounds.js";
import { decideAutofix } from "./decide-autofix.js";
import { fetchIssueComments, priorRunsFrom } from "../context/fetch/fetch-issue-comments.js";
import { RepoGitHub } from "../github/repo-github.js";
import { describeMode, prRunSpec, type PrMode } from "../context/pr-run-spec.js";
import { pushedByBot, readCheckSuite, type CheckSuiteFacts } from "./read-check-suite.js";

const FAILED = new Set(["failure", "timed_out"]);

/** One note per pull request when the automatic fixes stop: a redelivery or a later suite edits it. */
export const autofixStopMarker = (pull: number) => `<!-- aider-bot:autofix-stop:${pull} -->`;

/** The fields of a `check_suite` payload this triage reads (beyond {@link readCheckSuite}'s). */
interface SuitePayload {
  action: unknown;
  owner: unknown;
  repo: unknown;
  appSlug: unknown;
  cloneUrl: string;
  htmlUrl: string;
  defaultBranch: string;
  installationId: number;
}

/** {@link SuitePayload} read off the (unverified) payload; missing fields stay empty, as GitHub may leave them out. */
function readSuitePayload(payload: unknown): SuitePayload {
  const at = (...path: string[]) => payloadField(payload, ...path);
  return {
    action: at("action"),
    owner: at("repository", "owner", "login"),
    repo: at("repository", "name"),
    appSlug: at("check_suite", "app", "slug"),
    cloneUrl: String(at("repository", "clone_url") ?? ""),
    htmlUrl: String(at("repository", "html_url") ?? ""),
    defaultBranch: String(at("repository", "default_branch") ?? "main"),
    installationId: Number(at("installation", "id") ?? 0),
  };
}

/** A failed suite on a repository that opted in, with what the later steps read. */
interface FailedSuite {
  payload: SuitePayload;
  suite: CheckSuiteFacts;
  owner: string;
  repo: string;
  pull: number;
  config: RepoConfig;
}

const ignored = (reason: string): HandleResult => ({ kind: "ignored", reason });

/**
 * `check_suite.completed` (`ci.autofix`): when checks fail on a commit the bot pushed, queue a `fix-ci`
 * run by itself, at most `ci.max_rounds` per pull request (counted from its own status comments), and say so once
 * when the limit is reached. Cheap checks come first: most suites pass, and most repositories never opt in.
 */
export async function handleCheckSuite(ctx: EventContext, services: AppServices): Promise<HandleResult> {
  const failed = await readFailedSuite(ctx);
  if (!failed.ok) return ignored(failed.reason);
  const { owner, repo, pull, suite, config } = failed.value;
  const botLogin = await services.botLogin();
  const { comments } = await fetchIssueComments(RepoGitHub.create({ octokit: ctx.api, owner, repo }), pull);
  const rounds = countAutofixRounds(comments, botLogin, suite.headSha);
  if (rounds.alreadyForSha) return ignored("an automatic fix already ran for this commit");
  const decision = decideAutofix({
    autofix: config.ci.autofix,
    maxRounds: config.ci.max_rounds,
    conclusion: suite.conclusion,
    suiteAppId: suite.suiteAppId,
    botAppId: await suiteAppIdOfBot(failed.value, services, botLogin),
    headPushedByBot: pushedByBot(priorRunsFrom(comments, botLogin), suite.headSha),
    pullNumbers: suite.pullNumbers,
    roundsDone: rounds.rounds,
  });
  const log = ctx.log.child({ delivery: ctx.id, repo: `${owner}/${repo}`, number: pull });
  if (decision.kind === "skip") return ignored(decision.reason);
  if (decision.kind === "stop") {
    const marker = autofixStopMarker(pull);
    const body = `${marker}\n🛑 ${decision.message}`;
    await ensureComment(ctx.api, { owner, repo, issueNumber: pull, marker, botLogin, body });
    log.info({ rounds: rounds.rounds }, "automatic CI fixes stopped");
    return { kind: "replied", reason: "autofix limit reached" };
  }
  const built = await buildFixRequest(ctx, failed.value, services, { round: decision.round, botLogin });
  if (!built.ok) return ignored(built.reason);
  const result = await enqueueFix(ctx, services, failed.value, built.value, botLogin);
  log.info(
    { job: built.value.jobId, round: decision.round, queued: result.kind === "enqueued" },
    "automatic CI fix enqueued",
  );
  return result;
}

type Step<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The suite, if it failed on an open PR of a repository whose (default-branch) config turns `ci.autofix` on. */
async function readFailedSuite(ctx: EventContext): Promise<Step<FailedSuite>> {
  const no = (reason: string): Step<FailedSuite> => ({ ok: false, reason });
  const payload = readSuitePayload(ctx.payload);
  if (payload.action !== "completed") return no(`check_suite.${String(payload.action)} is not handled`);
  const suite = readCheckSuite(ctx.payload);
  if (!suite) return no("no check suite in payload");
  if (!suite.conclusion || !FAILED.has(suite.conclusion))
    return no(`check suite concluded ${suite.conclusion ?? "without a conclusion"}`);
  const { owner, repo } = payload;
  if (typeof owner !== "string" || typeof repo !== "string" || !owner || !repo) return no("no repository in payload");
  let raw: unknown;
  try {
    raw = await ctx.loadConfig();
  } catch (error) {
    // A config that cannot be read cannot have opted in; the next command on the PR reports the problem.
    return no(`config unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseRepoConfig(raw);
  if (!parsed.ok) return no("invalid .github/aider.yml");
  if (!parsed.config.ci.autofix) return no("ci.autofix is off");
  const pull = suite.pullNumbers[0];
  if (pull === undefined) return no("the commit belongs to no open pull request of this repository");
  return { ok: true, value: { payload, suite, owner, repo, pull, config: parsed.config } };
}

/**
 * The App id the suite is compared with: our own check run's suite must never start a fix of itself, and it is
 * known from the payload's app slug too (`<slug>[bot]` is the bot's login).
 */
async function suiteAppIdOfBot(failed: FailedSuite, services: AppServices, botLogin: string): Promise<number> {
  const slug = failed.payload.appSlug;
  if (slug !== undefined && `${String(slug)}[bot]`.toLowerCase() === botLogin.toLowerCase())
    return failed.suite.suiteAppId;
  return (await services.botAppId?.()) ?? -1;
}

/** The `fix-ci` run request for this round, unless the PR's head moved on or the settings are refused. */
async function buildFixRequest(
  ctx: EventContext,
  failed: FailedSuite,
  services: AppServices,
  args: { round: number; botLogin: string },
): Promise<Step<RunRequest>> {
  const { owner, repo, pull, suite, config, payload } = failed;
  const pr = await getPullRequest(ctx.api, { owner, repo, pullNumber: pull });
  // The head moved on since the suite ran (someone pushed): that commit's own suite decides.
  if (pr.head.sha !== suite.headSha)
    return { ok: false, reason: "the pull request's head moved on since this check suite" };
  const resolved = resolveSettings(config, { files: [] }, services.defaults);
  if (!resolved.ok) return { ok: false, reason: resolved.message };
  const mode: PrMode = {
    kind: "fix-ci",
    extra: "",
    autofix: { round: args.round, maxRounds: config.ci.max_rounds, sha: suite.headSha },
  };
  const cloneUrl = payload.cloneUrl;
  const description = `${pr.title ?? ""}\n\n${pr.body ?? ""}`.trim();
  return {
    ok: true,
    value: {
      // No ':' in a job id (BullMQ refuses it); the commit makes it unique per round.
      jobId: `autofix-${owner}.${repo}-${pull}-${suite.headSha.slice(0, 12)}`,
      deliveryId: ctx.id,
      owner,
      repo,
      installationId: payload.installationId,
      cloneUrl,
      defaultBranch: payload.defaultBranch,
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
      requester: { login: args.botLogin },
      settings: resolved.value,
      context: prRunSpec(config, mode),
    },
  };
}

/**
 * The "queued" status comment and the run job. The status comment is found again by the job id's marker, so a
 * redelivered suite edits it instead of adding one; the engine's dedupe by job id then keeps the run to one.
 */
async function enqueueFix(
  ctx: EventContext,
  services: AppServices,
  failed: FailedSuite,
  request: RunRequest,
  botLogin: string,
): Promise<HandleResult> {
  const { owner, repo, pull } = failed;
  const statusCommentId = await ensureStatusComment(ctx.api, {
    owner,
    repo,
    issueNumber: pull,
    jobId: request.jobId,
    botLogin,
    body: renderStage("queued", request),
  });
  const context: JobContext = {
    req: request,
    statusCommentId,
    reactTo: { kind: "issue", number: pull },
    webUrl: failed.payload.htmlUrl,
    command: failed.config.trigger.command,
  };
  const queued = await services.runs.enqueue({
    id: request.jobId,
    key: jobKey(owner, repo, pull),
    installationId: request.installationId,
    kind: "run",
    data: context,
  });
  return queued ? { kind: "enqueued", jobId: request.jobId, context } : ignored("duplicate delivery");
}
