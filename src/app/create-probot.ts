import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import { createRedactingLogger, type LineSink } from "../security/create-redacting-logger.js";
import { guardedOctokit } from "../security/guard-github-writes.js";
import { processRedactor } from "../security/process-redactor.js";

/** Retries after GitHub's primary or secondary limit (the plugin waits the `retry-after` GitHub gave). */
const LIMIT_RETRIES = 2;

/**
 * Octokit's throttling as the app uses it. Probot keys each installation's client by its installation id, so one
 * busy installation waits for its own budget, not everyone's; with Redis, Bottleneck keeps those budgets in Redis
 * so every receiver and worker shares them. Both limits are retried after GitHub's `retry-after` (Probot's default
 * gives up on the secondary one).
 */
export function throttleOptions(env: Pick<AppEnv, "redisUrl">, enabled: boolean, log: Logger): Record<string, unknown> {
  if (!enabled) return { enabled: false };
  const retry = (kind: string) => (retryAfter: number, options: { method: string; url: string; request: { retryCount: number } }) => {
    const again = options.request.retryCount < LIMIT_RETRIES;
    log.warn({ method: options.method, url: options.url, retryAfter, again }, `GitHub ${kind} rate limit`);
    return again;
  };
  const clustering = env.redisUrl ? { Bottleneck, connection: new Bottleneck.IORedisConnection({ client: new Redis(env.redisUrl, { maxRetriesPerRequest: null }) }) } : {};
  return { enabled: true, onRateLimit: retry("primary"), onSecondaryRateLimit: retry("secondary"), ...clustering };
}

/**
 * The Probot instance of a receiver or worker: the redacting logger, our write guard on every Octokit, throttling
 * per installation. Every secret the process holds is registered with the one redactor first. A worker passes no
 * webhook secret (it never sees a webhook): Probot gets a random one it never uses.
 */
export async function createProbot(env: AppEnv, privateKey: string, options: { throttle?: boolean; logFormat?: "json" | "pretty"; logSink?: LineSink; webhookSecret?: string } = {}): Promise<Probot> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  for (const secret of [env.openaiApiKey, options.webhookSecret, privateKey]) processRedactor.add(secret);
  const log = await createRedactingLogger({
    level: env.logLevel,
    redactor: processRedactor,
    format: options.logFormat ?? env.logFormat ?? "pretty",
    ...(options.logSink ? { sink: options.logSink } : {}),
  });
  const throttle = throttleOptions(env, options.throttle ?? env.throttle, log);
  return new Probot({
    appId: env.appId,
    privateKey,
    secret: options.webhookSecret ?? crypto.randomUUID(),
    log,
    ...(env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {}),
    Octokit: guardedOctokit(processRedactor, throttle),
  });
}
