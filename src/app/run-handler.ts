import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import { createForkPool, type ForkOutcome, type ForkPool } from "../exec/fork-worker.js";
import type { GitHubClient } from "../github/github-client.js";
import type { RunJobData } from "../run/run-job-data.js";
import type { EngineJob, JobHandler } from "../jobs/job-engine.js";
import type { AppMetrics } from "../metrics/app-metrics.js";
import { isMetricMessage } from "../metrics/metric-event.js";
import { countSpendRefusal } from "../metrics/record-metric.js";
import { answerSpendRequest } from "../spend/spend-ipc.js";
import type { DashboardService } from "./dashboard/dashboard-service.js";
import { waitForTriage, type IntakeGate } from "./intake-gate.js";
import type { JobTokenPrefetch } from "./job-token-prefetch.js";
import { mintJobTokens } from "./mint-repo-token.js";
import type { AppSpend } from "./open-spend.js";
import { modelSecrets } from "./model-secrets.js";
import { runTrigger } from "./run-trigger.js";
import type { MirrorPrefetch } from "./mirror-prefetch.js";
import type { ReadAnswers, ReadsPrefetch } from "./reads-prefetch.js";
import {
  isMirrorFetchedRequest,
  readAheadKey,
  secretFingerprints,
  withoutSecrets,
  type RunJobProcessInput,
} from "./run-job-process.js";

/** The job process's module in app/: `.js` when built, `.ts` (run through tsx) from sources; named from the folder above (see fork-worker's childEntry). */
export function jobModule(): { module: string; execArgv: string[] } {
  const js = fileURLToPath(new URL("../app/run-job-process.js", import.meta.url));
  return existsSync(js)
    ? { module: js, execArgv: [] }
    : { module: js.replace(/\.js$/, ".ts"), execArgv: ["--import", "tsx"] };
}

/** The pool of job processes; one is kept started ahead (module loaded), so a job does not wait for Node. */
export function startJobPool(env: Pick<AppEnv, "source" | "spare">): ForkPool {
  const { module, execArgv } = jobModule();
  return createForkPool({ module, execArgv, env: withoutSecrets(env.source), spare: env.spare });
}

export interface RunHandlerDeps {
  env: Pick<AppEnv, "source" | "webhookSecret" | "privateKey" | "fallbackModels">;
  gate?: IntakeGate;
  /** Triage jobs waiting: a run starts once triage has caught up (see intake-gate). */
  triageQueued(): Promise<number>;
  appApi(): Promise<GitHubClient>;
  /** Tokens triage started minting for the jobs it queued here (see job-token-prefetch); absent: minted at start. */
  tokens?: JobTokenPrefetch;
  /** Fetches into the repository's mirror triage started for the jobs it queued here (see mirror-prefetch). */
  mirrors?: MirrorPrefetch;
  /** The GitHub reads triage made for the jobs it queued here (see reads-prefetch). */
  reads?: ReadsPrefetch;
  bot(): Promise<{ login: string; email: string }>;
  log: Logger;
  /** Null in a process that only receives webhooks. */
  pool: ForkPool | null;
  spend: AppSpend | null;
  metrics: AppMetrics;
  dashboard(): DashboardService | null;
}

/**
 * The run job's handler: mint the job's two repository tokens, start the job in its own process (see
 * run-job-process) with the spend guard answered over IPC, record the run's metrics, and throw on a crash so the
 * engine runs it again from a fresh clone.
 */
export function createRunHandler(deps: RunHandlerDeps): JobHandler<RunJobData> {
  const { module } = jobModule();
  const fingerprints = secretFingerprints([deps.env.webhookSecret, deps.env.privateKey]);
  return async (job, signal) => {
    await deps.gate?.quiet();
    await waitForTriage(deps.triageQueued, { signal });
    const ctx = job.data;
    const log = deps.log.child({ job: ctx.req.jobId, key: job.key, attempt: job.attempt });
    // The fetch into the repository's mirror triage started for this job (mirror-prefetch): the job's checkout waits
    // for it over IPC instead of fetching on its own.
    const fetched = deps.mirrors?.take(ctx.req.jobId) ?? null;
    // And the reads it made for the job (reads-prefetch): the job's API client asks for each before asking GitHub.
    const reads = deps.reads?.take(ctx.req.jobId) ?? null;
    const input = {
      ...(await jobTokens(deps, ctx)),
      job: ctx,
      fingerprints,
      ...processInput(deps, ctx),
      ...(fetched ? { mirrorFetched: true } : {}),
      ...(reads ? { readsAhead: true } : {}),
    };
    log.info({ attempt: job.attempt }, "job process starting");
    if (!deps.pool) throw new Error("this process only receives webhooks: it does not run jobs");
    // The job's model calls reserve and settle through this process, which holds the ledger.
    const guard = deps.spend?.guardFor(ctx, (limit) => {
      log.warn({ limit }, "model call refused: spend limit");
      countSpendRefusal(limit.replace(/-/g, "_")); // a fixed scope name: run, pr, repo_day, installation_month…
    });
    const started = performance.now();
    const startedAt = new Date();
    // The job process sends its model usage and GitHub's rate limits over IPC; its outcome comes back as the result.
    const outcome = await deps.pool.run({
      module,
      input,
      signal,
      graceMs: 10_000,
      onMessage: (m) => isMetricMessage(m) && deps.metrics.record(m.metric),
      ...(guard || fetched || reads ? { onRequest: answerJob(guard, fetched, reads) } : {}),
    });
    await recordRunEnd(deps, job, outcome, signal, { started, startedAt });
    if (outcome.kind === "done" || signal.aborted) return;
    // A throw is a crash: the engine runs the job again from a fresh clone, or past its attempts reports it.
    throw new Error(`the job process ${outcome.kind === "failed" ? "failed" : "crashed"}: ${outcome.message}`);
  };
}

/** The job process's requests: its fetch into the mirror, its reads made ahead, its model calls' spend. */
function answerJob(
  guard: Parameters<typeof answerSpendRequest>[0] | null | undefined,
  fetched: Promise<string | null> | null,
  reads: ReadAnswers | null,
): (m: unknown) => Promise<unknown> {
  return (m) => {
    if (fetched && isMirrorFetchedRequest(m)) return fetched;
    const key = readAheadKey(m);
    if (key !== null) return reads ? reads(key) : Promise.resolve(null);
    return guard ? answerSpendRequest(guard, m) : Promise.reject(new Error("unknown request from the job process"));
  };
}

/**
 * Two tokens limited to the job's repository (API writes, git) and the bot's identity: the pair triage started for
 * this job when there is one (minted again should that mint have failed, so the job reports its own error), else
 * minted now.
 */
async function jobTokens(
  deps: RunHandlerDeps,
  ctx: RunJobData,
): Promise<Pick<RunJobProcessInput, "apiToken" | "gitToken" | "bot">> {
  const { jobId, installationId, repo } = ctx.req;
  const mint = () => mintJobTokens(deps.appApi, installationId, repo);
  const started = deps.tokens?.take({ jobId, installationId, repo });
  const [tokens, bot] = await Promise.all([started ? started.catch(mint) : mint(), deps.bot()]);
  return { ...tokens, bot };
}

/**
 * What a job process gets besides its job: the environment without the App's secrets, and the keys of the providers
 * its run's models use (no other).
 */
function processInput(
  deps: RunHandlerDeps,
  ctx: RunJobData,
): Pick<RunJobProcessInput, "source" | "modelSecrets" | "spend"> {
  return {
    source: withoutSecrets(deps.env.source),
    modelSecrets: modelSecrets(ctx.req.settings, deps.env.fallbackModels, deps.env.source),
    ...(deps.spend ? { spend: true } : {}),
  };
}

/** The run's metrics, and the schedules dashboard's record of a scheduled run. */
async function recordRunEnd(
  deps: RunHandlerDeps,
  job: EngineJob<RunJobData>,
  outcome: ForkOutcome,
  signal: AbortSignal,
  at: { started: number; startedAt: Date },
): Promise<void> {
  const kind =
    outcome.kind === "done"
      ? String((outcome.result as { outcome?: unknown } | null)?.outcome ?? "error")
      : signal.aborted
        ? "cancelled"
        : "crashed";
  deps.metrics.runEnded({
    trigger: runTrigger(job.kind, job.data),
    outcome: kind,
    seconds: (performance.now() - at.started) / 1000,
  });
  const dashboard = deps.dashboard();
  if (dashboard && job.kind === "schedule") {
    const pr = outcome.kind === "done" ? (outcome.result as { pr?: unknown } | null)?.pr : undefined;
    await dashboard.runEnded(job.data, kind, typeof pr === "number" ? pr : undefined, at.startedAt);
  }
}
