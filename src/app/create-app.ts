import { readAppIdentity } from "../github/installations.js";
import path from "node:path";
import type { ApplicationFunction, Probot } from "probot";
import { runDefaults } from "../compose/run-settings.js";
import type { AppEnv } from "../config/env.js";
import { createExec } from "../exec/create-exec.js";
import { startSpawnHelper } from "../exec/spawn-helper.js";
import type { ForkPool } from "../exec/fork-worker.js";
import { sweepContainers } from "../exec/sweep-containers.js";
import type { RunJobData, RunQueue } from "../run/run-job-data.js";
import { createLookupCache, type LookupCache } from "../triage/lookup-cache.js";
import { isTriaged } from "./triaged-events.js";
import { configKeysStaleAfterPush } from "./config-push.js";
import { parseWebhook } from "../edge/parse-webhook.js";
import type { Interruption } from "../report/render-status.js";
import { reportInterrupted } from "../report/report-interrupted.js";
import { createJobEngine } from "../jobs/create-job-engine.js";
import type { EngineStats, JobEngine } from "../jobs/job-engine.js";
import { mergePrices } from "../llm/price-table.js";
import { createAppMetrics, type AppMetrics } from "../metrics/app-metrics.js";
import { setMetricSink } from "../metrics/record-metric.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";
import { armSchedules, scheduleFiring, type AppGitHub } from "./app-schedules.js";
import { containerEngineFrom, wantsContainer } from "./create-check-exec.js";
import type { DashboardService } from "./dashboard/dashboard-service.js";
import { isDashboardEdit } from "./dashboard/handle-dashboard-edit.js";
import type { IntakeGate } from "./intake-gate.js";
import { openSpend, type AppSpend } from "./open-spend.js";
import { createRunHandler, startJobPool } from "./run-handler.js";
import { createJobTokenPrefetch, type JobTokenPrefetch } from "./job-token-prefetch.js";
import { createMirrorPrefetch, type MirrorPrefetch } from "./mirror-prefetch.js";
import { createReadsPrefetch, type ReadsPrefetch } from "./reads-prefetch.js";
import { readJobInputs, readsAheadFor } from "./run-reads.js";
import { cacheRootOf, mirrorPlace } from "./execute-run.js";
import { checkoutSource } from "../run/prepare/prepare-checkout.js";
import { createGit } from "../workspace/create-git.js";
import type { AppServices } from "../triage/triage-services.js";
import type { Logger } from "pino";
import { mintJobTokens } from "./mint-repo-token.js";
import { alive, sweepJobDirs } from "./sweep-job-dirs.js";
import { createTriageHandler, type TriageData } from "./triage-handler.js";
import { triageKey } from "./triage-key.js";

/** `applied`: handled at intake, nothing to triage (a push to a default branch drops that repository's config). */
/**
 * What became of a verified delivery. `refused`: its payload lacks what its kind must carry (the reason names the
 * field, never a value); nothing is queued and the sender is answered with the reason.
 */
export type IntakeResult = "recorded" | "duplicate" | "ignored" | "applied" | { refused: string };

export interface AppHandle {
  appFn: ApplicationFunction;
  /** Record a verified webhook for triage (durably, deduplicated by delivery id; nothing awaited on GitHub). */
  intake(event: VerifiedWebhook): Promise<IntakeResult>;
  /** Queue depth, running jobs (triage and runs) and live workers, across the cluster. */
  stats(): Promise<EngineStats>;
  /** Resolves once nothing is queued or running (polls {@link AppHandle.stats}; for the demo and tests). */
  idle(pollMs?: number): Promise<void>;
  /**
   * Stop taking jobs; running ones get `graceMs`, then go back in the queue. Every run job this process does not
   * finish has its status comment updated (and, without Redis, so has every job still waiting).
   */
  shutdown(graceMs: number): Promise<void>;
  /** This process's Prometheus registry: runs, model usage, queue, webhook acks, GitHub's rate limit. */
  metrics: AppMetrics;
}

export interface AppOptions {
  /** This process works jobs (a worker, or `serve` without AIDER_BOT_ROLE=receiver); else it only records them. */
  work: boolean;
  /** The webhook endpoint's gate in this process: jobs start only while it is quiet (see intake-gate). */
  gate?: IntakeGate;
}

/**
 * Triage jobs are GitHub calls only: many at once, none waits behind a busy PR. A triage mostly waits on GitHub; with
 * 16 at a time the storm's triage went in lockstep batches (16 started, all ~85 ms later the next 16). With the
 * throttle on, Octokit's own limits still bound the requests in flight per installation.
 */
const TRIAGE_CONCURRENCY = 32;

/** The engines and services a loaded app holds (null until Probot loads the app function). */
interface Loaded {
  triage: JobEngine<TriageData>;
  runs: JobEngine<RunJobData>;
  report(job: RunJobData, why: Interruption): Promise<void>;
  pool: ForkPool | null;
  spend: AppSpend | null;
  log: Probot["log"];
}

/** What the app's parts share: set as the app loads, read by the handle and the handlers. */
interface AppState {
  loaded: Loaded | null;
  dashboard: DashboardService | null;
  /** Triage's shared config and permission reads; a push to a default branch drops that repository's config. */
  lookups: LookupCache;
}

/**
 * The Probot app over the durable job engine, as two job kinds: triage (config, permission, 👀, the "queued" status
 * comment; many at once) and run (the coder on a fresh clone, one at a time per PR or issue, each in its own child
 * process). The receiver only records triage jobs. Wiring only; the logic lives in github/, run/, coder/.
 */
export function createApp(env: AppEnv, options: AppOptions = { work: true }): AppHandle {
  const state: AppState = {
    loaded: null,
    dashboard: null,
    lookups: createLookupCache({ ttlMs: env.triageCacheMs }),
  };
  const metrics = createAppMetrics({
    models: [
      env.model,
      ...(env.weakModel ? [env.weakModel] : []),
      ...(env.fallbackModels ?? []),
      ...Object.keys(mergePrices(env.prices)),
    ],
    shown: [env.model, ...(env.weakModel ? [env.weakModel] : [])],
  });
  // This process's own observations (GitHub's rate limit on its Octokit) land in its registry.
  setMetricSink(metrics.record);
  const appFn: ApplicationFunction = async (app: Probot) => {
    state.loaded = await loadApp(app, env, options, state, metrics);
  };
  const handle = appHandle(env, state, appFn, metrics);
  metrics.queueFrom(async () => (state.loaded ? handle.stats() : { queued: 0, running: 0 }));
  return handle;
}

/** The App's GitHub side over Probot's auth: its client, an installation's, and its bot's identity (asked once). */
function appGitHub(app: Probot): AppGitHub & { bot(): Promise<{ login: string; email: string }> } {
  let botPromise: Promise<{ login: string; email: string }> | null = null;
  const bot = () =>
    (botPromise ??= app.auth().then(async (octokit) => {
      const { login, email } = await readAppIdentity(octokit);
      return { login, email };
    })).catch((error: unknown) => {
      botPromise = null;
      throw error;
    });
  return {
    bot,
    botLogin: async () => (await bot()).login,
    appApi: async () => await app.auth(),
    installationApi: async (id: number) => await app.auth(id),
  };
}

/** Probot's app function: the two job engines, their handlers, the sweeps, the schedules, the webhook handlers. */
async function loadApp(
  app: Probot,
  env: AppEnv,
  options: AppOptions,
  state: AppState,
  metrics: AppMetrics,
): Promise<Loaded> {
  const gh = appGitHub(app);
  const report = (job: RunJobData, why: Interruption) =>
    gh
      .installationApi(job.req.installationId)
      .then((api) => reportInterrupted(api, job, why))
      .catch((error: unknown) =>
        app.log.error({ err: error, job: job.req.jobId }, "could not report an interrupted job"),
      );
  // The shared spend ledger (LMDB under the data dir, or Redis) and the operator's limits.
  const spend = options.work ? await openSpend(env) : null;
  const pool = options.work ? startJobPool(env) : null;
  const { tokens, mirrors, reads, ahead } = options.work && !env.redisUrl ? jobPrefetches(env, gh, app.log) : {};
  let triage: JobEngine<TriageData> | null = null;
  const common = {
    redisUrl: env.redisUrl,
    leaseMs: env.leaseMs,
    onError: (error: unknown) => app.log.error({ err: error }, "job engine error"),
    ...(options.gate ? { quiet: options.gate.quiet } : {}),
  };
  const runs = await createJobEngine<RunJobData>({
    ...common,
    dataDir: path.join(env.dataDir, "runs"),
    prefix: "aider-bot-runs",
    concurrency: env.concurrency,
    perInstallation: env.perInstallation,
    ...(options.work
      ? {
          handler: createRunHandler({
            env,
            ...(options.gate ? { gate: options.gate } : {}),
            triageQueued: async () => (triage ? (await triage.stats()).queued : 0),
            appApi: gh.appApi,
            ...(tokens ? { tokens } : {}),
            ...(mirrors ? { mirrors } : {}),
            ...(reads ? { reads } : {}),
            bot: gh.bot,
            log: app.log,
            pool,
            spend,
            metrics,
            dashboard: () => state.dashboard,
          }),
        }
      : {}),
    onAbandoned: (job, reason) => {
      app.log.error({ job: job.id, key: job.key, reason }, "job given up");
      return report(job.data, reason);
    },
  });
  const runPort: RunQueue = { enqueue: (job) => runs.enqueue(job), cancel: (key) => runs.cancel(key) };
  const firing = scheduleFiring(env, gh, runPort, app.log);
  state.dashboard = firing.dashboard;
  triage = await createJobEngine<TriageData>({
    ...common,
    dataDir: path.join(env.dataDir, "triage"),
    prefix: "aider-bot-triage",
    concurrency: TRIAGE_CONCURRENCY,
    perInstallation: TRIAGE_CONCURRENCY,
    attempts: 3,
    backoffMs: 2_000,
    ...(options.work
      ? {
          handler: createTriageHandler({
            app,
            services: {
              runs: runPort,
              botLogin: gh.botLogin,
              defaults: runDefaults(env),
              lookups: state.lookups,
              ...(tokens ? { runTokens: tokens } : {}),
              ...(ahead ? { runAhead: ahead } : {}),
              ...(spend ? { usage: spend.usage } : {}),
            },
            ...(options.gate ? { gate: options.gate } : {}),
            fire: firing.fire,
            dashboard: () => state.dashboard,
          }),
        }
      : {}),
    onAbandoned: (job, reason) =>
      app.log.error(
        { job: job.id, reason },
        "a triage job failed on every attempt (a webhook: GitHub may redeliver it)",
      ),
  });
  if (options.work) sweepLeftovers(env, app.log);
  if (env.schedules && options.work) armSchedules(env, gh, firing, triage, app.log);
  return { triage, runs, report, pool, spend, log: app.log };
}

/**
 * Without Redis this process triages and runs its jobs: triage starts a run's tokens for its handler here, and with
 * them the fetch of its branch into the repository's mirror (the job's git token, this process's git) and the job's
 * first reads (its API token). With Redis another worker may pick the job up, and what was started here would only be
 * wasted.
 */
function jobPrefetches(
  env: AppEnv,
  gh: AppGitHub,
  log: Logger,
): {
  tokens: JobTokenPrefetch;
  mirrors: MirrorPrefetch;
  reads: ReadsPrefetch;
  ahead: NonNullable<AppServices["runAhead"]>;
} {
  const tokens = createJobTokenPrefetch((installationId, repo) => mintJobTokens(gh.appApi, installationId, repo));
  // Its git is started by a spawn helper of this process's (see exec/spawn-helper), made on the first fetch: started
  // from this process's heap, each fetch blocked triage's thread ~20–30 ms (at load), just before it queued the job.
  let git: ReturnType<typeof createGit> | null = null;
  const gitOf = () => (git ??= createGit(startSpawnHelper(env.source).exec({ sourceEnv: env.source })));
  const mirrors = createMirrorPrefetch((req, place) => gitOf().fetchIntoMirror(req, place));
  // No more reads made ahead than jobs can start at once (see reads-prefetch).
  const reads = createReadsPrefetch(readJobInputs(env, gh.botLogin, log), { maxWaiting: env.concurrency });
  const root = cacheRootOf(env);
  const ahead: NonNullable<AppServices["runAhead"]> = {
    start: (req) => {
      const pending = tokens.pending(req.jobId);
      // The fetch into the mirror, for a run whose checkout is made from one (see mirror-prefetch).
      const place = mirrorPlace(req, { env, logger: log }, root);
      if (place) gitOf();
      mirrors.start(
        req.jobId,
        place ? { place, ...checkoutSource(req) } : null,
        pending?.then((t) => t.gitToken) ?? null,
      );
      // The job's first reads (see reads-prefetch), with its API token.
      reads.start(req, readsAheadFor(req) ? (pending?.then((t) => t.apiToken) ?? null) : null);
    },
    drop: (jobId) => {
      mirrors.drop(jobId);
      reads.drop(jobId);
    },
  };
  return { tokens, mirrors, reads, ahead };
}

/** Checkouts (and, in container mode, containers) left by job processes that died: removed in the background. */
function sweepLeftovers(env: AppEnv, log: Probot["log"]): void {
  void sweepJobDirs(env).then(
    (swept) => swept.length && log.info({ swept }, "removed checkouts left by jobs that died"),
    (error: unknown) => log.warn({ err: error }, "could not sweep old checkouts"),
  );
  // Their containers too (container mode): a job process that died never removed its own.
  if (!wantsContainer(env)) return;
  void sweepContainers(createExec({ sourceEnv: env.source }), containerEngineFrom(env), alive).then(
    (swept) => swept.length && log.info({ swept }, "removed containers left by jobs that died"),
    (error: unknown) => log.warn({ err: error }, "could not sweep old containers"),
  );
}

/** The handle `serve` and `worker` hold: intake, stats, idle and shutdown over the loaded engines. */
function appHandle(env: AppEnv, state: AppState, appFn: ApplicationFunction, metrics: AppMetrics): AppHandle {
  const loaded = () => {
    if (!state.loaded) throw new Error("the app is not loaded yet");
    return state.loaded;
  };
  return {
    appFn,
    metrics,
    async intake(event) {
      // The edge: the payload read once, typed, or refused with the reason. GitHub never sends a malformed one, so
      // whatever did is told why (and it is logged by delivery and reason, never with the payload).
      const parsed = parseWebhook(event.name, event.payload, event.id);
      if (!parsed.ok) {
        if (!parsed.refused) return "ignored";
        loaded().log.warn({ delivery: event.id, reason: parsed.reason }, "webhook refused");
        return { refused: parsed.reason };
      }
      const typed = parsed.event;
      // Dropped here, not in a triage job: a command sent right after the push must not be triaged first.
      if (typed.kind === "push") {
        const stale = configKeysStaleAfterPush(typed);
        if (!stale) return "ignored";
        state.lookups.forget(stale);
        return "applied";
      }
      if (!("installationId" in typed)) return "ignored";
      if (!isTriaged(typed) && !(env.scheduleDashboard && isDashboardEdit(typed))) return "ignored";
      // The typed event is stored, not the payload: the job reads only what the edge kept.
      const added = await loaded().triage.enqueue({
        id: event.id,
        key: triageKey(typed),
        installationId: typed.installationId,
        kind: "triage",
        data: { event: typed },
      });
      return added ? "recorded" : "duplicate";
    },
    async stats() {
      const { triage, runs } = loaded();
      const [a, b] = await Promise.all([triage.stats(), runs.stats()]);
      return { running: a.running + b.running, queued: a.queued + b.queued, workers: Math.max(a.workers, b.workers) };
    },
    async idle(pollMs = 50) {
      for (;;) {
        const { running, queued } = await this.stats();
        if (running === 0 && queued === 0) return;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    shutdown: (graceMs) => shutdownApp(loaded(), graceMs, env),
  };
}

/**
 * Stop taking jobs; running ones get `graceMs`, then go back in the queue. Every run job this process does not
 * finish has its status comment updated (and, without Redis, so has every job still waiting).
 */
async function shutdownApp(loaded: Loaded, graceMs: number, env: Pick<AppEnv, "redisUrl">): Promise<void> {
  const { triage, runs, report, pool, spend } = loaded;
  pool?.close();
  // Triage first: it is quick, and a triage finishing now may still enqueue a run.
  await triage.shutdown(graceMs);
  const cut = await runs.shutdown(graceMs);
  const tell = [
    ...cut.requeued.map((job) => report(job.data, { kind: "requeued" })),
    // With Redis other workers go on with the waiting jobs; alone, this process is the one they wait for.
    ...(env.redisUrl ? [] : cut.waiting.map((job) => report(job.data, { kind: "waiting" }))),
  ];
  await Promise.all(tell);
  await spend?.close();
}
