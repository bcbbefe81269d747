import Bottleneck from "bottleneck";
import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { createHttpFetch } from "../github/http-fetch.js";
import type { AppEnv } from "../config/env.js";
import { createRedactingLogger, type LineSink } from "../security/create-redacting-logger.js";
import { githubWriteGuard } from "../github/guard-github-writes.js";
import { rateLimitHandlers } from "../github/token-octokit.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import { composeRedactor } from "../compose/compose-clients.js";
import { rateLimitPlugin } from "../metrics/observe-rate-limit.js";
import { isJsonObject } from "../github/json-field.js";

/**
 * Octokit's throttling as the app uses it. Probot keys each installation's client by its installation id, so one
 * busy installation waits for its own budget, not everyone's; with Redis, Bottleneck keeps those budgets in Redis
 * so every receiver and worker shares them. Both limits are retried after GitHub's `retry-after` (Probot's default
 * gives up on the secondary one).
 */
export async function throttleOptions(
  env: Pick<AppEnv, "redisUrl">,
  enabled: boolean,
  log: Logger,
): Promise<Record<string, unknown>> {
  if (!enabled) return { enabled: false };
  // ioredis loads only with Redis (see jobs/create-job-engine).
  const clustering = env.redisUrl
    ? {
        Bottleneck,
        connection: new Bottleneck.IORedisConnection({
          client: new (await import("ioredis")).Redis(env.redisUrl, { maxRetriesPerRequest: null }),
        }),
      }
    : {};
  return { enabled: true, ...rateLimitHandlers(log), ...clustering };
}

/**
 * The redactor of a receiver or worker process (its composition root's): the webhook secret, the App's key (line by
 * line), the metrics token and every model key; each installation token is added as GitHub mints it.
 */
export function appRedactor(env: AppEnv, privateKey: string, webhookSecret?: string): SecretRedactor {
  return composeRedactor({
    secrets: [webhookSecret, privateKey, env.metricsToken],
    models: { endpoint: { baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey }, providers: env },
  });
}

/**
 * The Probot instance of a receiver or worker: the redacting logger, our write guard on every Octokit, throttling
 * per installation, all over the process's one redactor ({@link appRedactor}, built here unless the caller passes
 * it). A worker passes no webhook secret (it never sees a webhook): Probot gets a random one it never uses.
 */
export async function createProbot(
  env: AppEnv,
  privateKey: string,
  options: {
    throttle?: boolean;
    logFormat?: "json" | "pretty";
    logSink?: LineSink;
    webhookSecret?: string;
    redactor?: SecretRedactor;
  } = {},
): Promise<Probot> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  const redactor = options.redactor ?? appRedactor(env, privateKey, options.webhookSecret);
  const log = await createRedactingLogger({
    level: env.logLevel,
    redactor,
    format: options.logFormat ?? env.logFormat ?? "pretty",
    ...(options.logSink ? { sink: options.logSink } : {}),
  });
  const throttle = await throttleOptions(env, options.throttle ?? env.throttle, log);
  return new Probot({
    appId: env.appId,
    privateKey,
    secret: options.webhookSecret ?? crypto.randomUUID(),
    log,
    ...(env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {}),
    Octokit: appOctokit(throttle, redactor),
  });
}

/**
 * The app's Octokit class: Probot's (its App and installation authentication), with our write guard, GitHub's
 * remaining rate limit recorded per installation (metrics), `fetch` over
 * node:http(s) (see github/http-fetch) and the throttle settings above.
 */
function appOctokit(throttle: Record<string, unknown>, redactor: SecretRedactor): typeof ProbotOctokit {
  const fetch = createHttpFetch();
  return ProbotOctokit.plugin(githubWriteGuard(redactor), rateLimitPlugin).defaults((o: Record<string, unknown>) => ({
    ...o,
    request: { ...(isJsonObject(o.request) ? o.request : {}), fetch },
    throttle: { ...(isJsonObject(o.throttle) ? o.throttle : {}), ...throttle },
  }));
}
