import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApplicationFunction, Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import { createForkPool, type ForkPool } from "../exec/fork-worker.js";
import { waitForTriage, type IntakeGate } from "./intake-gate.js";
import type { JobContext, RunQueue } from "../github/job-context.js";
import { createLookupCache } from "../github/lookup-cache.js";
import { isHandledEvent, registerHandlers } from "../github/register-handlers.js";
import { reportInterrupted } from "../github/report-interrupted.js";
import type { Interruption } from "../github/render-status.js";
import { getAuthenticatedApp } from "../github/repositories.js";
import { createJobEngine } from "../jobs/create-job-engine.js";
import type { EngineStats, JobEngine, JobHandler } from "../jobs/job-engine.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";
import { fireScheduleDetailed } from "./fire-schedule.js";
import { createDashboardService, type DashboardService } from "./dashboard/dashboard-service.js";
import { isDashboardEdit } from "./dashboard/handle-dashboard-edit.js";
import { JOB_API_TOKEN_PERMISSIONS, mintRepoToken } from "./mint-repo-token.js";
import { listScheduleTargets } from "./list-schedule-targets.js";
import type { RunJobProcessInput } from "./run-job-process.js";
import { answerSpendRequest } from "../spend/spend-ipc.js";
import { openSpend, type AppSpend } from "./open-spend.js";
import { secretFingerprints, withoutSecrets } from "./run-job-process.js";
import { createScheduler, type Schedule, type ScheduleTarget } from "./scheduler.js";
import { alive, sweepJobDirs } from "./sweep-job-dirs.js";
import { containerEngineFrom, wantsContainer } from "./create-check-exec.js";
import { sweepContainers } from "../exec/sweep-containers.js";
import { createExec } from "../exec/create-exec.js";
import { triageKey } from "./triage-key.js";
import { mergePrices } from "../llm/price-table.js";
import { createAppMetrics, type AppMetrics } from "../metrics/app-metrics.js";
import { isMetricMessage } from "../metrics/metric-event.js";
import { countSpendRefusal, setMetricSink } from "../metrics/record-metric.js";
import { runTrigger } from "./run-trigger.js";

export type IntakeResult = "recorded" | "duplicate" | "ignored";

/** What a triage job carries: a verified webhook, or a schedule's tick (fired once per tick across replicas). */
/**
 * A delivery is stored as the text GitHub sent (`raw`), parsed again by its triage: encoding the parsed payload into
 * the queue cost more than the rest of the intake. Records stored whole (`payload`) by an older version still work.
 */
type StoredWebhook = { id: string; name: string; raw: string } | VerifiedWebhook;
type TriageData = StoredWebhook | { tick: { key: string; target: ScheduleTarget; schedule: Schedule } };

const webhookOf = (stored: StoredWebhook): { id: string; name: string; payload: unknown } =>
  "payload" in stored
    ? { id: stored.id, name: stored.name, payload: stored.payload }
    : { id: stored.id, name: stored.name, payload: JSON.parse(stored.raw) as unknown };

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
  /** This process's Prometheus registry (issue #35): runs, model usage, queue, webhook acks, GitHub's rate limit. */
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

/** The job process's module in app/: `.js` when built, `.ts` (run through tsx) from sources; named from the folder above (see fork-worker's childEntry). */
function jobModule(): { module: string; execArgv: string[] } {
  const js = fileURLToPath(new URL("../app/run-job-process.js", import.meta.url));
  return existsSync(js)
    ? { module: js, execArgv: [] }
    : { module: js.replace(/\.js$/, ".ts"), execArgv: ["--import", "tsx"] };
}

/**
 * The Probot app over the durable job engine, as two job kinds: triage (config, permission, 👀, the "queued" status
 * comment; many at once) and run (the coder on a fresh clone, one at a time per PR or issue, each in its own child
 * process). The receiver only records triage jobs. Wiring only; the logic lives in github/, run/, coder/.
 */
export function createApp(env: AppEnv, options: AppOptions = { work: true }): AppHandle {
  let engines: {
    triage: JobEngine<TriageData>;
    runs: JobEngine<JobContext>;
    report(job: JobContext, why: Interruption): Promise<void>;
    pool: ForkPool | null;
    spend: AppSpend | null;
  } | null = null;
  const loaded = () => {
    if (!engines) throw new Error("the app is not loaded yet");
    return engines;
  };
  // Deliveries whose triage is on its first attempt: nothing of theirs can be on GitHub yet (see AppServices).
  const firstAttempts = new Set<string>();
  let dashboard: DashboardService | null = null;
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
  metrics.queueFrom(async () => (engines ? handle.stats() : { queued: 0, running: 0 }));
  const appFn: ApplicationFunction = async (app: Probot) => {
    let botPromise: Promise<{ login: string; email: string }> | null = null;
    const bot = () =>
      (botPromise ??= app.auth().then(async (octokit) => {
        const app = await getAuthenticatedApp(octokit);
        const slug = app.slug ?? "aider-bot";
        const id = app.id ?? 0;
        return { login: `${slug}[bot]`, email: `${id}+${slug}[bot]@users.noreply.github.com` };
      })).catch((error: unknown) => {
        botPromise = null;
        throw error;
      });
    const appApi = async () => await app.auth();
    const installationApi = async (id: number) => await app.auth(id);
    const report = (job: JobContext, why: Interruption) =>
      installationApi(job.req.installationId)
        .then((api) => reportInterrupted(api, job, why))
        .catch((error: unknown) =>
          app.log.error({ err: error, job: job.req.jobId }, "could not report an interrupted job"),
        );

    // Issue #35: the shared spend ledger (LMDB under the data dir, or Redis) and the operator's limits.
    const spend = options.work ? await openSpend(env) : null;
    const { module, execArgv } = jobModule();
    // One job process is kept started ahead (module loaded), so a job does not wait for Node and the module load.
    const pool = options.work
      ? createForkPool({ module, execArgv, env: withoutSecrets(env.source), spare: env.spare })
      : null;
    const fingerprints = secretFingerprints([env.webhookSecret, env.privateKey]);
    const runHandler: JobHandler<JobContext> = async (job, signal) => {
      await options.gate?.quiet();
      await waitForTriage(async () => (await triage.stats()).queued, { signal });
      const ctx = job.data;
      const log = app.log.child({ job: ctx.req.jobId, key: job.key, attempt: job.attempt });
      const [apiToken, gitToken, identity] = await Promise.all([
        mintRepoToken(await appApi(), ctx.req.installationId, ctx.req.repo, JOB_API_TOKEN_PERMISSIONS),
        mintRepoToken(await appApi(), ctx.req.installationId, ctx.req.repo),
        bot(),
      ]);
      const input: RunJobProcessInput = {
        job: ctx,
        apiToken,
        gitToken,
        bot: identity,
        source: withoutSecrets(env.source),
        fingerprints,
        ...(env.openaiApiKey ? { modelKey: env.openaiApiKey } : {}),
        ...(spend ? { spend: true } : {}),
      };
      log.info({ attempt: job.attempt }, "job process starting");
      if (!pool) throw new Error("this process only receives webhooks: it does not run jobs");
      // The job's model calls reserve and settle through this process, which holds the ledger (issue #35).
      const guard = spend?.guardFor(ctx, (limit) => {
        log.warn({ limit }, "model call refused: spend limit");
        countSpendRefusal(limit.replace(/-/g, "_")); // a fixed scope name: run, pr, repo_day, installation_month…
      });
      const started = performance.now();
      const startedAt = new Date();
      // The job process sends its model usage and GitHub's rate limits over IPC; its outcome comes back as the result.
      const outcome = await pool.run({
        module,
        input,
        signal,
        graceMs: 10_000,
        onMessage: (m) => isMetricMessage(m) && metrics.record(m.metric),
        ...(guard ? { onRequest: (m: unknown) => answerSpendRequest(guard, m) } : {}),
      });
      const kind =
        outcome.kind === "done"
          ? String((outcome.result as { outcome?: unknown } | null)?.outcome ?? "error")
          : signal.aborted
            ? "cancelled"
            : "crashed";
      metrics.runEnded({
        trigger: runTrigger(job.kind, ctx),
        outcome: kind,
        seconds: (performance.now() - started) / 1000,
      });
      if (dashboard && job.kind === "schedule") {
        const pr = outcome.kind === "done" ? (outcome.result as { pr?: unknown } | null)?.pr : undefined;
        await dashboard.runEnded(ctx, kind, typeof pr === "number" ? pr : undefined, startedAt);
      }
      if (outcome.kind === "done" || signal.aborted) return;
      // A throw is a crash: the engine runs the job again from a fresh clone, or past its attempts reports it.
      throw new Error(`the job process ${outcome.kind === "failed" ? "failed" : "crashed"}: ${outcome.message}`);
    };
    const common = {
      redisUrl: env.redisUrl,
      leaseMs: env.leaseMs,
      onError: (error: unknown) => app.log.error({ err: error }, "job engine error"),
      ...(options.gate ? { quiet: options.gate.quiet } : {}),
    };
    const runs = await createJobEngine<JobContext>({
      ...common,
      dataDir: path.join(env.dataDir, "runs"),
      prefix: "aider-bot-runs",
      concurrency: env.concurrency,
      perInstallation: env.perInstallation,
      ...(options.work ? { handler: runHandler } : {}),
      onAbandoned: (job, reason) => {
        app.log.error({ job: job.id, key: job.key, reason }, "job given up");
        return report(job.data, reason);
      },
    });
    const runPort: RunQueue = { enqueue: (job) => runs.enqueue(job), cancel: (key) => runs.cancel(key) };
    const fireOnce = async (target: ScheduleTarget, schedule: Schedule, key: string, manual?: { jobId: string }) => {
      const api = await installationApi(target.installationId);
      return fireScheduleDetailed({
        api,
        target,
        schedule,
        key,
        botLogin: (await bot()).login,
        runs: runPort,
        defaults: { model: env.model, weakModel: env.weakModel, fallbackModels: env.fallbackModels },
        now: new Date(),
        ...(manual ? { manual } : {}),
      });
    };
    // Issue #35: the schedules dashboard (one issue per repository with schedules; "Run now" boxes).
    dashboard = env.scheduleDashboard
      ? createDashboardService({
          installationApi,
          botLogin: async () => (await bot()).login,
          log: app.log,
          fire: fireOnce,
        })
      : null;
    const fire = async (target: ScheduleTarget, schedule: Schedule, key: string) => {
      const result = await fireOnce(target, schedule, key);
      if (result.kind === "skipped")
        app.log.info(
          { schedule: key, pr: result.pr },
          "schedule tick skipped: its last pull request is still open (stack: false)",
        );
      await dashboard?.fired(target, key, result);
    };
    const triage = await createJobEngine<TriageData>({
      ...common,
      dataDir: path.join(env.dataDir, "triage"),
      prefix: "aider-bot-triage",
      concurrency: TRIAGE_CONCURRENCY,
      perInstallation: TRIAGE_CONCURRENCY,
      attempts: 3,
      backoffMs: 2_000,
      ...(options.work
        ? {
            handler: async (job: { data: TriageData; attempt: number }) => {
              await options.gate?.quiet();
              if ("tick" in job.data) return fire(job.data.tick.target, job.data.tick.schedule, job.data.tick.key);
              const event = webhookOf(job.data);
              if (isDashboardEdit(event.name, event.payload)) return dashboard?.edited(event.id, event.payload);
              if (job.attempt === 1) firstAttempts.add(event.id);
              try {
                await app.receive(event as Parameters<Probot["receive"]>[0]);
              } finally {
                firstAttempts.delete(event.id);
              }
            },
          }
        : {}),
      onAbandoned: (job, reason) =>
        app.log.error(
          { job: job.id, reason },
          "a triage job failed on every attempt (a webhook: GitHub may redeliver it)",
        ),
    });
    engines = { triage, runs, report, pool, spend };
    if (options.work) {
      void sweepJobDirs(env).then(
        (swept) => swept.length && app.log.info({ swept }, "removed checkouts left by jobs that died"),
        (error: unknown) => app.log.warn({ err: error }, "could not sweep old checkouts"),
      );
      // Their containers too (container mode): a job process that died never removed its own.
      if (wantsContainer(env)) {
        void sweepContainers(createExec({ sourceEnv: env.source }), containerEngineFrom(env), alive).then(
          (swept) => swept.length && app.log.info({ swept }, "removed containers left by jobs that died"),
          (error: unknown) => app.log.warn({ err: error }, "could not sweep old containers"),
        );
      }
    }
    if (env.schedules && options.work) {
      const scheduler = createScheduler({
        log: app.log,
        listTargets: async () => {
          const targets = await listScheduleTargets({ appApi: await appApi(), installationApi, log: app.log });
          await dashboard?.synced(targets);
          return targets;
        },
        fire,
        // Each tick becomes one triage job, whichever replicas armed it; the job's id carries the tick's time.
        engine: {
          arm: (key, target, schedule) =>
            triage.upsertSchedule(
              key,
              schedule.cron,
              {
                key: `schedule:${key}`,
                installationId: target.installationId,
                kind: "schedule",
                data: { tick: { key, target, schedule } },
              },
              schedule.timezone,
            ),
          disarm: (key) => triage.removeSchedule(key),
        },
      });
      const sync = () =>
        scheduler.sync().catch((error: unknown) => app.log.warn({ err: error }, "schedule sync failed"));
      void sync();
      setInterval(sync, env.scheduleSyncMs).unref();
    }
    registerHandlers(app, {
      runs: runPort,
      botLogin: async () => (await bot()).login,
      defaults: { model: env.model, weakModel: env.weakModel, fallbackModels: env.fallbackModels },
      firstAttempt: (id) => firstAttempts.has(id),
      lookups: createLookupCache({ ttlMs: env.triageCacheMs }),
      ...(spend ? { usage: spend.usage } : {}),
    });
  };
  const handle: AppHandle = {
    appFn,
    metrics,
    async intake(event) {
      if (
        !isHandledEvent(event.name, event.payload) &&
        !(env.scheduleDashboard && isDashboardEdit(event.name, event.payload))
      )
        return "ignored";
      const installationId = Number(
        (event.payload as { installation?: { id?: unknown } } | null)?.installation?.id ?? 0,
      );
      const data: StoredWebhook = event.raw !== undefined ? { id: event.id, name: event.name, raw: event.raw } : event;
      const added = await loaded().triage.enqueue({
        id: event.id,
        key: triageKey(event),
        installationId,
        kind: "triage",
        data,
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
    async shutdown(graceMs) {
      const { triage, runs, report, pool, spend } = loaded();
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
    },
  };
  return handle;
}
