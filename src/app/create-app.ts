import type { ApplicationFunction, Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import { createExec } from "../exec/create-exec.js";
import type { GitHubApi } from "../github/github-api.js";
import type { JobContext, RunQueue } from "../github/job-context.js";
import { isHandledEvent, registerHandlers } from "../github/register-handlers.js";
import { reportInterrupted } from "../github/report-interrupted.js";
import { createInProcessQueue } from "../jobs/in-process-queue.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { createLlmClient } from "../llm/create-llm-client.js";
import { loadTokenizer } from "../llm/count-tokens.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";
import { createCheckExec } from "./create-check-exec.js";
import { executeRun } from "./execute-run.js";
import { fireSchedule } from "./fire-schedule.js";
import { mintRepoToken } from "./mint-repo-token.js";
import { listScheduleTargets } from "./list-schedule-targets.js";
import { createScheduler } from "./scheduler.js";
import { triageKey } from "./triage-key.js";

export type IntakeResult = "recorded" | "duplicate" | "ignored";

export interface AppHandle {
  appFn: ApplicationFunction;
  /** Record a verified webhook for triage (nothing awaited on GitHub): the receiver answers right after. */
  intake(event: VerifiedWebhook): Promise<IntakeResult>;
  stats(): Promise<{ running: number; queued: number }>;
  /** Resolves once nothing is queued or running (polls {@link AppHandle.stats}; for the demo and tests). */
  idle(pollMs?: number): Promise<void>;
  /** Stop taking jobs; running ones get `graceMs`; every job not finished has its status comment updated. */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * The Probot app as two job kinds: triage (config, permission, 👀, the "queued" status comment; many at once, no
 * per-key order) and run (the coder on a fresh clone; one at a time per PR or issue). The receiver only records
 * triage jobs. Wiring only; the logic lives in github/, run/, coder/.
 */
export function createApp(env: AppEnv): AppHandle {
  let triage: JobQueue<VerifiedWebhook> | null = null;
  let runs: JobQueue<JobContext> | null = null;
  let stopInterrupted: ((job: JobContext) => Promise<void>) | null = null;
  const loaded = () => {
    if (!triage || !runs) throw new Error("the app is not loaded yet");
    return { triage, runs };
  };
  const appFn: ApplicationFunction = (app: Probot) => {
    const exec = createExec({ sourceEnv: env.source });
    void loadTokenizer();
    const llm = createLlmClient({ baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey ?? "not-needed", allowPrefill: env.allowPrefill, priceTable: env.prices });
    let botPromise: Promise<{ login: string; email: string }> | null = null;
    const bot = () =>
      (botPromise ??= app.auth().then(async (octokit) => {
        const { data } = await octokit.request("GET /app");
        const slug = (data as { slug?: string } | null)?.slug ?? "aider-bot";
        const id = (data as { id?: number } | null)?.id ?? 0;
        return { login: `${slug}[bot]`, email: `${id}+${slug}[bot]@users.noreply.github.com` };
      })).catch((error: unknown) => {
        botPromise = null;
        throw error;
      });
    const checkExec = createCheckExec(env, exec, app.log);
    const installationApi = async (id: number) => (await app.auth(id)) as unknown as GitHubApi;
    const report = (job: JobContext, why: Parameters<typeof reportInterrupted>[2]) =>
      installationApi(job.req.installationId)
        .then((api) => reportInterrupted(api, job, why))
        .catch((error: unknown) => app.log.error({ err: error, job: job.req.jobId }, "could not report an interrupted job"));
    stopInterrupted = (job) => report(job, { kind: "requeued" });
    const runQueue = createInProcessQueue<JobContext>({
      concurrency: env.concurrency,
      handler: async (job, signal) => {
        const ctx = job.data;
        const log = app.log.child({ job: ctx.req.jobId, key: job.key });
        try {
          await executeRun(ctx, {
            env,
            exec,
            checkExec,
            llm,
            api: await installationApi(ctx.req.installationId),
            // The token git (a child process) gets: this repository only, contents only.
            gitToken: async () => mintRepoToken((await app.auth()) as unknown as GitHubApi, ctx.req.installationId, ctx.req.repo),
            bot: await bot(),
            logger: log,
            signal,
          });
        } catch (error) {
          // runJob reports every failure of the run itself; this is one before it could start (GitHub or the disk
          // refused): the status comment must not stay "queued".
          log.error({ err: error }, "job crashed");
          await report(ctx, { kind: "crashed", message: error instanceof Error ? error.message : String(error) });
        }
      },
    });
    runs = runQueue;
    const runPort: RunQueue = {
      enqueue: async (job) => runQueue.enqueue({ id: job.id, key: job.key, kind: job.kind, data: job.data }),
      cancel: async (key) => ({ dropped: 0, aborted: runQueue.cancel(key) }),
    };
    triage = createInProcessQueue<VerifiedWebhook>({
      // Triage is GitHub calls only: many at once, and none waits behind a busy PR.
      concurrency: 16,
      handler: (job) => app.receive(job.data as Parameters<Probot["receive"]>[0]),
      onError: (job, error) => app.log.error({ err: error, delivery: job.id }, "triage failed"),
    });
    if (env.schedules) {
      const scheduler = createScheduler({
        log: app.log,
        listTargets: async () => listScheduleTargets({ appApi: (await app.auth()) as unknown as GitHubApi, installationApi, log: app.log }),
        fire: async (target, schedule, key) => {
          const api = await installationApi(target.installationId);
          await fireSchedule({ api, target, schedule, key, botLogin: (await bot()).login, runs: runPort, defaults: { model: env.model, weakModel: env.weakModel }, now: new Date() });
        },
      });
      const sync = () => scheduler.sync().catch((error: unknown) => app.log.warn({ err: error }, "schedule sync failed"));
      void sync();
      setInterval(sync, env.scheduleSyncMs).unref();
    }
    registerHandlers(app, { runs: runPort, botLogin: async () => (await bot()).login, defaults: { model: env.model, weakModel: env.weakModel } });
  };
  return {
    appFn,
    async intake(event) {
      if (!isHandledEvent(event.name, event.payload)) return "ignored";
      return loaded().triage.enqueue({ id: event.id, key: triageKey(event), data: event }) ? "recorded" : "duplicate";
    },
    async stats() {
      const { triage: t, runs: r } = loaded();
      const a = t.stats();
      const b = r.stats();
      return { running: a.running + b.running, queued: a.queued + b.queued };
    },
    async idle(pollMs = 50) {
      for (;;) {
        const { running, queued } = await this.stats();
        if (running === 0 && queued === 0) return;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    async shutdown(graceMs) {
      const { triage: t, runs: r } = loaded();
      await t.shutdown(graceMs);
      const cut = await r.shutdown(graceMs);
      await Promise.all(cut.map((job) => stopInterrupted?.(job.data)));
    },
  };
}
