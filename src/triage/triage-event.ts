import { createComment, readCommentBody } from "../github/ensure-comment.js";
import { getPullRequest } from "../github/pull-request.js";
import { getCommitSha } from "../github/repositories.js";
import { payloadField } from "../github/payload-field.js";
import type { Logger } from "pino";
import { parseCommand } from "../commands/parse-command.js";
import { loadRepoConfig } from "../config/load-repo-config.js";
import type { ConfigResult } from "../config/repo-config.js";
import { handleCheckSuite } from "./handle-check-suite.js";
import { describeMode, prRunSpec } from "../context/pr-run-spec.js";
import { fail, ok, type Result } from "../result.js";
import { resolveSettings } from "../run/prepare/resolve-settings.js";
import type { RunRequest, RunTarget } from "../run/run-request.js";
import { startCheckRun } from "../github/check-run.js";
import { decideAction, type EventAction } from "./decide-action.js";
import { ensureComment, findComment, listComments } from "../github/ensure-comment.js";
import { ensureStatusComment } from "../github/ensure-status-comment.js";
import { type GitHubClient } from "../github/github-client.js";
import { reactionSubject, type JobContext } from "../run/job-context.js";
import type { AppServices, EventContext, HandleResult } from "./event-context.js";
import { readRequestMarker, replyMarker, runMarker, type StoredRequest } from "../github/markers.js";
import { approvePlan, dropPlans, untickPlan, type ApprovalRefusal } from "./plan-approval.js";
import { lookupPermission } from "../github/permissions.js";
import { addReaction } from "../github/reactions.js";
import { renderChecksReply } from "../report/render-checks-reply.js";
import { renderStage } from "../report/render-status.js";

type Enqueue = Extract<EventAction, { kind: "enqueue" }>;

/**
 * Triage of one webhook, in a triage job (after the receiver has answered GitHub): load and validate config, decide
 * (see {@link decideAction}: the command grammar runs once, there), then carry the decision out — replies are
 * idempotent by marker; a request gets 👀, its "queued" status comment and a run job carrying its {@link JobContext}.
 * A comment without a command costs one config read (Probot caches nothing; the grammar needs the command word).
 */
export async function triageEvent(ctx: EventContext, services: AppServices): Promise<HandleResult> {
  // A failed check suite on the bot's commit may start an automatic CI fix (ci.autofix).
  if (ctx.name === "check_suite") return handleCheckSuite(ctx, services);
  const config = await loadConfig(ctx, services);
  const bot = { login: await services.botLogin(), appId: await services.botAppId?.() };
  const permissionOf = (username: string, where: { owner: string; repo: string }) =>
    shared(services, `permission:${where.owner}/${where.repo}:${username}`, () =>
      lookupPermission(ctx.api, { ...where, username }),
    );
  const action = await decideAction(ctx, { config, bot, permissionOf });
  if (action.kind === "ignore") return { kind: "ignored", reason: action.reason };
  const { facts } = action;
  const log = ctx.log.child({ delivery: ctx.id, repo: `${facts.owner}/${facts.repo}`, number: facts.number });
  const where = { owner: facts.owner, repo: facts.repo, issueNumber: facts.number };
  switch (action.kind) {
    case "reply-unauthorized": {
      log.info({ sender: facts.sender.login }, "unauthorized command");
      // One polite reply per user and thread: later commands from the same user get none.
      if (!(await findComment(ctx.api, { ...where, marker: action.marker, botLogin: bot.login }))) {
        await ensureComment(ctx.api, { ...where, marker: action.marker, botLogin: bot.login, body: action.body });
      }
      // A plan's approve box ticked by someone who may not approve: nothing runs, and the box is unticked again.
      if (facts.planComment) await untickPlan(ctx.api, where, facts.planComment.id);
      return { kind: "replied", reason: "unauthorized" };
    }
    case "reply":
      await ensureComment(ctx.api, { ...where, marker: action.marker, botLogin: bot.login, body: action.body });
      return { kind: "replied", reason: action.reason === "invalid-config" ? "invalid config" : action.reason };
    case "show-checks": {
      const body = await renderChecksReply(
        ctx.api,
        { owner: facts.owner, repo: facts.repo, defaultBranch: facts.defaultBranch },
        action.config,
      );
      await ensureComment(ctx.api, {
        ...where,
        marker: action.marker,
        botLogin: bot.login,
        body: `${action.marker}\n${body}`,
      });
      return { kind: "replied", reason: "checks" };
    }
    case "cancel": {
      // Cancelling again is harmless, so a retried triage repeats it; its reply is found by the delivery's marker,
      // and one posted by an earlier attempt stands (a repeat would find nothing left and say so, wrongly).
      const cancelled = await services.runs.cancel(action.key);
      const count = cancelled.dropped + cancelled.aborted;
      const marker = replyMarker(ctx.id);
      if (await findComment(ctx.api, { ...where, marker, botLogin: bot.login })) return { kind: "cancelled", count };
      const text = count
        ? `🛑 Cancelled ${count} request${count === 1 ? "" : "s"}.`
        : "There is nothing to cancel here.";
      await createComment(ctx.api, { ...where, body: `${marker}\n${text}` });
      return { kind: "cancelled", count };
    }
    case "usage": {
      const text = services.usage
        ? await services.usage(
            { installationId: facts.installationId, owner: facts.owner, repo: facts.repo },
            action.config.budget,
          )
        : "😕 Spend is not tracked by this process (it only receives webhooks); ask again in a moment, or ask the operator.";
      await ensureComment(ctx.api, {
        ...where,
        marker: action.marker,
        botLogin: bot.login,
        body: `${action.marker}\n${text}`,
      });
      return { kind: "replied", reason: "usage" };
    }
    case "drop-plan": {
      const marker = replyMarker(ctx.id);
      const body = await dropPlans(ctx.api, {
        where,
        botLogin: bot.login,
        by: facts.sender.login,
        command: action.command,
      });
      await ensureComment(ctx.api, { ...where, marker, botLogin: bot.login, body: `${marker}\n${body}` });
      return { kind: "replied", reason: "plan dropped" };
    }
    case "enqueue":
      return enqueue(ctx, services, action, bot.login, log);
  }
}

async function enqueue(
  ctx: EventContext,
  services: AppServices,
  action: Enqueue,
  botLogin: string,
  log: Logger,
): Promise<HandleResult> {
  const { facts } = action;
  const where = { owner: facts.owner, repo: facts.repo, issueNumber: facts.number };
  // A label run arrives twice (`opened` and `labeled`, two deliveries, one dedupe id): its status comment, found by
  // the run marker, says the other delivery got here first. (Triage of one issue's label events is serialised.)
  if (facts.dedupeId && (await findComment(ctx.api, { ...where, marker: runMarker(action.jobId), botLogin }))) {
    return { kind: "ignored", reason: "duplicate delivery" };
  }
  const built = await buildRequest(ctx, action, services, botLogin);
  if (!built.ok) {
    const marker = replyMarker(ctx.id);
    await ensureComment(ctx.api, { ...where, marker, botLogin, body: `${marker}\n😕 ${built.message}` });
    return { kind: "replied", reason: built.message };
  }
  const request = built.value;
  const reactTo = reactionSubject(facts);
  // 👀 and the "queued" comment together: they are the requester's first feedback. With a dedupe id the thread was
  // searched for this job's comment just above. Otherwise it is found by its marker: a first triage attempt in this
  // process is no proof that nothing is on GitHub (GitHub redelivers to an app that lost its queue data).
  const known = facts.dedupeId ? ("none-yet" as const) : undefined;
  const [, statusCommentId] = await Promise.all([
    addReaction(ctx.api, facts, reactTo, "eyes").catch((error: unknown) => log.warn({ err: error }, "reaction failed")),
    ensureStatusComment(ctx.api, {
      ...where,
      jobId: request.jobId,
      botLogin,
      body: renderStage("queued", request),
      ...(known ? { known } : {}),
    }),
  ]);
  const checkRunId = await startTriageCheckRun(ctx.api, request, log);
  const context: JobContext = {
    req: request,
    statusCommentId,
    reactTo,
    webUrl: facts.webUrl,
    command: action.config.trigger.command,
    ...(checkRunId !== null ? { checkRunId } : {}),
  };
  const queued = await services.runs.enqueue({
    id: action.jobId,
    key: action.key,
    installationId: facts.installationId,
    kind: request.verb,
    data: context,
  });
  log.info({ job: request.jobId, queued, verb: request.verb }, queued ? "job enqueued" : "duplicate delivery ignored");
  return queued
    ? { kind: "enqueued", jobId: request.jobId, context }
    : { kind: "ignored", reason: "duplicate delivery" };
}

/**
 * A run on a pull request gets its Check Run now, after the visible feedback: its id travels with the job, so a run
 * lost with its worker still has it completed by whoever reports the loss.
 */
async function startTriageCheckRun(api: GitHubClient, req: RunRequest, log: Logger): Promise<number | null> {
  if (req.target.kind === "issue" || req.verb !== "run") return null;
  return startCheckRun(api, { owner: req.owner, repo: req.repo, headSha: req.target.headSha }).catch(
    (error: unknown) => {
      // Not fatal: the run starts its own when it begins, and the status comment tells the story anyway.
      log.warn({ err: error }, "check run could not be started at triage");
      return null;
    },
  );
}

/** `read()`, or its answer shared with the triage of other events on the same key (see lookup-cache). */
function shared<T>(services: AppServices, key: string, read: () => Promise<T>): Promise<T> {
  // GitHub's owner, repository and user names are case-insensitive.
  return services.lookups ? services.lookups.get(key.toLowerCase(), read) : read();
}

/** Probot's `context.config` result as a validated config; a file that is not even YAML is a problem too. */
async function loadConfig(ctx: EventContext, services: AppServices): Promise<ConfigResult> {
  const repo = payloadField(ctx.payload, "repository", "full_name");
  return loadRepoConfig(() =>
    typeof repo === "string" ? shared(services, `config:${repo}`, ctx.loadConfig) : ctx.loadConfig(),
  );
}

/** What a job runs: the command's own verb, text, flags and mode, or (`retry`) those of the earlier request. */
interface RequestInputs {
  verb: RunRequest["verb"];
  text: string;
  flags: Enqueue["flags"];
  mode: Enqueue["mode"];
}

/** The RunRequest for a job: `retry` finds the last request in the bot's status comments; a PR's head is looked up. */
async function buildRequest(
  ctx: EventContext,
  action: Enqueue,
  services: AppServices,
  botLogin: string,
): Promise<Result<RunRequest, RequestRefusal>> {
  const { facts, config } = action;
  const inputs = action.verb === "retry" ? await retryInputs(ctx, action, botLogin) : ok(commandInputs(action));
  if (!inputs.ok) return inputs;
  const { verb, text, flags, mode } = inputs.value;
  const resolved = resolveSettings(config, flags, services.defaults);
  if (!resolved.ok) return resolved;
  const target = await runTarget(ctx.api, facts);
  // An approval runs the open plan, if it still fits the branch (checked again after the clone).
  const approved = action.verb === "approve" ? await approvedPlan(ctx.api, action, target, text, botLogin) : ok(null);
  if (!approved.ok) return approved;
  const plan = approved.value;
  return ok({
    jobId: action.jobId,
    deliveryId: ctx.id,
    owner: facts.owner,
    repo: facts.repo,
    installationId: facts.installationId,
    cloneUrl: facts.cloneUrl,
    defaultBranch: facts.defaultBranch,
    ...(facts.language ? { language: facts.language } : {}),
    target,
    verb,
    message: plan
      ? `Carry out the approved plan${plan.corrections ? ` with corrections: ${plan.corrections}` : ""}.`
      : text,
    untrustedContext: action.untrustedContext,
    files: flags.files,
    requester: {
      login: facts.sender.login,
      ...(facts.sender.id ? { id: facts.sender.id } : {}),
      ...(facts.sender.type === "Bot" ? { isBot: true } : {}),
    },
    ...(facts.reactTo.kind === "issue-comment" ? { triggerCommentId: facts.reactTo.id } : {}),
    settings: resolved.value,
    // Every run built here reads its PR/issue context; address-reviews / fix-ci carry their mode.
    context: prRunSpec(config, mode ?? { kind: "plain" }),
    ...(plan ? { plan } : {}),
  });
}

/** The inputs of a command as it was written (an approval runs as `run`). */
function commandInputs(action: Enqueue): RequestInputs {
  const verb = action.verb === "retry" || action.verb === "approve" ? "run" : action.verb;
  return { verb, text: action.text, flags: action.flags, mode: action.mode };
}

/** `retry`: the last request of the bot's status comments here, with the flags given now taking precedence. */
async function retryInputs(
  ctx: EventContext,
  action: Enqueue,
  botLogin: string,
): Promise<Result<RequestInputs, RequestRefusal>> {
  const { facts, config } = action;
  const comments = await listComments(ctx.api, { owner: facts.owner, repo: facts.repo, issueNumber: facts.number });
  const last = comments
    .filter((c) => c.user === botLogin)
    .map((c) => readRequestMarker(c.body))
    .filter((r) => r !== null)
    .at(-1);
  if (!last) return fail("nothing-to-retry", "There is no earlier request of mine here to retry.");
  // A pull-request loop (address-reviews, fix-ci) runs again as one; its text is the mode's own description.
  const mode = last.mode;
  if (mode && !facts.isPullRequest)
    return fail(
      "nothing-to-retry",
      "My last request here was for a pull request; there is nothing to retry on an issue.",
    );
  const earlier = mode ? ok(describeMode(mode)) : await requestText(ctx.api, facts, last, config.trigger.command);
  if (!earlier.ok) return earlier;
  const flags = {
    files: action.flags.files.length ? action.flags.files : last.files,
    editFormat: action.flags.editFormat ?? (last.editFormat as Enqueue["flags"]["editFormat"]),
    model: action.flags.model ?? last.model,
  };
  return ok({ verb: last.verb, text: earlier.value, flags, mode });
}

/** Where the run works: the pull request's head as GitHub reports it now (or its review thread), or the issue. */
async function runTarget(api: GitHubClient, facts: Enqueue["facts"]): Promise<RunTarget> {
  if (!facts.isPullRequest) return { kind: "issue", number: facts.number, title: facts.title };
  const pr = await getPullRequest(api, { owner: facts.owner, repo: facts.repo, pullNumber: facts.number });
  const head = {
    number: facts.number,
    headRef: String(pr.head.ref),
    headSha: String(pr.head.sha),
    headCloneUrl: String(pr.head.repo?.clone_url ?? facts.cloneUrl),
    isFork: pr.head.repo?.full_name !== `${facts.owner}/${facts.repo}`,
    ...(pr.maintainer_can_modify ? { maintainerCanModify: true } : {}),
    ...(pr.head.repo?.full_name ? { headRepoFullName: String(pr.head.repo.full_name) } : {}),
  };
  return facts.review ? { kind: "review-comment", ...head, ...facts.review } : { kind: "pull-request", ...head };
}

/** The plan an approval runs, if it is still open and made on the branch's current head. */
async function approvedPlan(
  api: GitHubClient,
  action: Enqueue,
  target: RunTarget,
  corrections: string,
  botLogin: string,
): Promise<Result<NonNullable<RunRequest["plan"]>, ApprovalRefusal>> {
  const { facts } = action;
  const head = target.kind === "issue" ? await branchHead(api, facts) : target.headSha;
  return approvePlan(api, {
    where: { owner: facts.owner, repo: facts.repo, issueNumber: facts.number },
    botLogin,
    ...(facts.planComment ? { commentId: facts.planComment.id } : {}),
    approver: facts.sender.login,
    command: action.config.trigger.command,
    head,
    corrections,
  });
}

/** Why no job could be built from an accepted command; the message is the bot's reply. */
type RequestRefusal = "nothing-to-retry" | "request-gone" | "model-not-allowed" | ApprovalRefusal;

/** The head commit of the default branch (an issue's plan is made on it). */
async function branchHead(
  api: GitHubClient,
  facts: { owner: string; repo: string; defaultBranch: string },
): Promise<string> {
  return getCommitSha(api, { owner: facts.owner, repo: facts.repo, ref: facts.defaultBranch });
}

/**
 * The instruction of an earlier request: kept in its marker, or (a long one) read again from the comment that asked
 * for it. A deleted or edited-away comment is an error the requester can act on.
 */
async function requestText(
  api: GitHubClient,
  where: { owner: string; repo: string },
  stored: StoredRequest,
  word: string,
): Promise<Result<string, "request-gone">> {
  if (stored.text !== undefined || !stored.textRef) return ok(stored.text ?? "");
  const ref = stored.textRef;
  const gone = fail(
    "request-gone",
    "The comment with my earlier request is gone or no longer holds the command, so there is nothing to retry; post the request again.",
  );
  const body = await readCommentBody(api, { ...where, kind: ref.kind, id: ref.id });
  if (body === null) return gone;
  const command = parseCommand(body, word);
  return command && (command.verb === "run" || command.verb === "ask") ? ok(command.text) : gone;
}
