import type { Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import { createApp, type AppHandle } from "./create-app.js";
import { createProbot } from "./create-probot.js";
import { startMetricsListener } from "./start-app-server.js";
import type { MetricsServer } from "../metrics/metrics-endpoint.js";

export interface Worker {
  probot: Probot;
  app: AppHandle;
  /** `/metrics` when AIDER_BOT_METRICS_PORT is set (a worker has no other listener). */
  metrics: MetricsServer | null;
}

/**
 * An `aider-bot worker`: the app's job handlers on the shared Redis queue, no webhook server. It mints installation
 * tokens with the App's key (so it needs APP_ID and PRIVATE_KEY) and never needs the webhook secret.
 */
export async function startWorker(env: AppEnv, privateKey: string): Promise<Worker> {
  if (!env.redisUrl)
    throw new Error(
      "REDIS_URL is not set: `aider-bot worker` works jobs from a shared Redis queue. Without Redis, `aider-bot serve` receives webhooks and works jobs in one process.",
    );
  const app = createApp(env, { work: true });
  const probot = await createProbot(env, privateKey);
  await probot.load(app.appFn, { cwd: process.cwd(), addHandler: () => undefined });
  const metrics = await startMetricsListener(env, app, probot.log);
  probot.log.info({ concurrency: env.concurrency }, "aider-bot worker started");
  return { probot, app, metrics };
}
