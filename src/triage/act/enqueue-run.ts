import type { Logger } from "pino";
import { replyMarker, runMarker } from "../../github/markers.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { renderStage } from "../../report/render-status.js";
import { reactionSubject, type RunJobData } from "../../run/run-job-data.js";
import type { RunRequest } from "../../run/run-request.js";
import { buildRunRequest } from "./build-run-request.js";
import { threadOf, type ActOn } from "./act-deps.js";

/**
 * A command that runs: its request built (a `retry` finds the earlier one, an approval its plan), then 👀, the
 * "queued" status comment, the PR's Check Run and the run job carrying its {@link RunJobData}.
 */
export const enqueueRun: ActOn<"enqueue"> = async (action, { github, services, botLogin, log }) => {
  const { facts } = action;
  const where = threadOf(facts);
  // A label run arrives twice (`opened` and `labeled`, two deliveries, one dedupe id): its status comment, found by
  // the run marker, says the other delivery got here first. (Triage of one issue's label events is serialised.)
  if (facts.dedupeId && (await github.findComment({ ...where, marker: runMarker(action.jobId), botLogin }))) {
    return { kind: "ignored", reason: "duplicate delivery" };
  }
  // The job's tokens are minted from here on (the request is authorised), beside the reads that build it: the fetch
  // into the mirror and the job's first reads start once they are, and started with the first feedback they were
  // minted one pull request read later. A request that is then refused drops them.
  services.runTokens?.start({ jobId: action.jobId, installationId: facts.installationId, repo: facts.repo });
  const built = await buildRunRequest(github, action, services.defaults, botLogin).catch((error: unknown) => {
    services.runTokens?.drop(action.jobId);
    throw error;
  });
  if (!built.ok) {
    services.runTokens?.drop(action.jobId);
    const marker = replyMarker(action.delivery);
    await github.ensureComment({ ...where, marker, botLogin, body: `${marker}\n😕 ${built.message}` });
    return { kind: "replied", reason: built.message };
  }
  const request = built.value;
  const reactTo = reactionSubject(facts);
  // 👀 and the "queued" comment together: they are the requester's first feedback. With a dedupe id the thread was
  // searched for this job's comment just above. Otherwise it is found by its marker: a first triage attempt in this
  // process is no proof that nothing is on GitHub (GitHub redelivers to an app that lost its queue data).
  const known = facts.dedupeId ? ("none-yet" as const) : undefined;
  // The Check Run is started beside them (it needs neither), not after: one GitHub round trip less before the job is
  // queued. It never throws (see startTriageCheckRun).
  const checkRunP = startTriageCheckRun(github, request, log);
  // While the job is queued and starts, its branch fetched into the repository's mirror (git token) and its first
  // reads made (API token): the check plan, the context.
  services.runAhead?.start(request);
  let statusCommentId: number;
  try {
    [, statusCommentId] = await Promise.all([
      github.addReaction(reactTo, "eyes").catch((error: unknown) => log.warn({ err: error }, "reaction failed")),
      github.ensureStatusComment({
        ...where,
        jobId: request.jobId,
        botLogin,
        body: renderStage("queued", request),
        ...(known ? { known } : {}),
      }),
    ]);
  } catch (error) {
    services.runTokens?.drop(request.jobId);
    services.runAhead?.drop(request.jobId);
    await closeUnqueuedCheckRun(github, await checkRunP, error, log);
    throw error;
  }
  const checkRunId = await checkRunP;
  const context: RunJobData = {
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
  if (!queued) {
    services.runTokens?.drop(request.jobId);
    services.runAhead?.drop(request.jobId);
  }
  log.info({ job: request.jobId, queued, verb: request.verb }, queued ? "job enqueued" : "duplicate delivery ignored");
  return queued
    ? { kind: "enqueued", jobId: request.jobId, context }
    : { kind: "ignored", reason: "duplicate delivery" };
};

/**
 * A run on a pull request gets its Check Run at triage, beside the visible feedback: its id travels with the job, so
 * a run lost with its worker still has it completed by whoever reports the loss.
 */
async function startTriageCheckRun(github: RepoGitHub, req: RunRequest, log: Logger): Promise<number | null> {
  if (req.target.kind === "issue" || req.verb !== "run") return null;
  return github.startCheckRun({ headSha: req.target.headSha }).catch((error: unknown) => {
    // Not fatal: the run starts its own when it begins, and the status comment tells the story anyway.
    log.warn({ err: error }, "check run could not be started at triage");
    return null;
  });
}

/**
 * The status comment could not be written, so no job carries this Check Run: it is completed here (as cancelled,
 * saying why), not left in progress on the pull request. Triage's own failure is what gets reported; a failure to
 * complete the Check Run only adds a log line.
 */
async function closeUnqueuedCheckRun(
  github: RepoGitHub,
  id: number | null,
  cause: unknown,
  log: Logger,
): Promise<void> {
  if (id === null) return;
  await github
    .completeCheckRun({
      id,
      conclusion: "cancelled",
      title: "Not started",
      summary: `The run was not queued: its status comment could not be written (${cause instanceof Error ? cause.message : String(cause)}). Ask again to retry.`,
    })
    .catch((error: unknown) => log.warn({ err: error }, "check run of an unqueued run could not be completed"));
}
