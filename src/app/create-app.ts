import type { ApplicationFunction, Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import { createExec } from "../exec/create-exec.js";
import { registerHandlers } from "../github/register-handlers.js";
import type { GitHubApi } from "../github/github-api.js";
import { createInProcessQueue } from "../jobs/in-process-queue.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { createLlmClient } from "../llm/create-llm-client.js";
import { loadTokenizer } from "../llm/count-tokens.js";
import type { RunRequest } from "../run/run-request.js";
import { createCheckExec } from "./create-check-exec.js";
import { createJobRunner, jobEnv } from "./create-job-runner.js";
import { fireSchedule } from "./fire-schedule.js";
import { mintRepoToken } from "./mint-repo-token.js";
import { listScheduleTargets } from "./list-schedule-targets.js";
import { createScheduler } from "./scheduler.js";

export interface AppHandle {
  appFn: ApplicationFunction;
  queue(): JobQueue<RunRequest>;
}

/**
 * The Probot app: webhook handlers that only acknowledge and enqueue, and the queue that runs jobs with the
 * coder. Wiring only; the logic lives in github/, run/, coder/.
 */
export function createApp(env: AppEnv): AppHandle {
  let queue: JobQueue<RunRequest> | null = null;
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
    const runner = createJobRunner({
      env: jobEnv(env),
      exec,
      checkExec,
      llm,
      bot,
      logger: app.log,
      installation: async (id, repo) => ({
        api: (await app.auth(id)) as unknown as GitHubApi,
        // The token git (a child process) gets: this repository only, contents only.
        token: async () => mintRepoToken((await app.auth()) as unknown as GitHubApi, id, repo),
      }),
    });
    queue = createInProcessQueue<RunRequest>({
      concurrency: env.concurrency,
      handler: runner,
      onError: (job, error) => app.log.error({ err: error, job: job.id }, "job crashed"),
    });
    const q = queue;
    if (env.schedules) {
      const scheduler = createScheduler({
        log: app.log,
        listTargets: async () =>
          listScheduleTargets({
            appApi: (await app.auth()) as unknown as GitHubApi,
            installationApi: async (id) => (await app.auth(id)) as unknown as GitHubApi,
            log: app.log,
          }),
        fire: async (target, schedule, key) => {
          const api = (await app.auth(target.installationId)) as unknown as GitHubApi;
          await fireSchedule({ api, target, schedule, key, botLogin: (await bot()).login, queue: q, defaults: { model: env.model, weakModel: env.weakModel }, now: new Date() });
        },
      });
      const sync = () => scheduler.sync().catch((error: unknown) => app.log.warn({ err: error }, "schedule sync failed"));
      void sync();
      setInterval(sync, env.scheduleSyncMs).unref();
    }
    registerHandlers(app, { queue: q, botLogin: async () => (await bot()).login, defaults: { model: env.model, weakModel: env.weakModel } });
  };
  return {
    appFn,
    queue: () => {
      if (!queue) throw new Error("the app is not loaded yet");
      return queue;
    },
  };
}
