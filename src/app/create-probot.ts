import { endpointSecrets, providerEndpoints } from "../llm/provider-endpoints.js";
import Bottleneck from "bottleneck";
import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { createHttpFetch } from "../github/http-fetch.js";
import type { AppEnv } from "../config/env.js";
import { createRedactingLogger, type LineSink } from "../security/create-redacting-logger.js";
import { githubWriteGuard } from "../github/guard-github-writes.js";
import { rateLimitHandlers } from "../github/token-octokit.js";
import { processRedactor } from "../security/process-redactor.js";
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
 * The Probot instance of a receiver or worker: the redacting logger, our write guard on every Octokit, throttling
 * per installation. Every secret the process holds is registered with the one redactor first. A worker passes no
 * webhook secret (it never sees a webhook): Probot gets a random one it never uses.
 */
export async function createProbot(
  env: AppEnv,
  privateKey: string,
  options: { throttle?: boolean; logFormat?: "json" | "pretty"; logSink?: LineSink; webhookSecret?: string } = {},
): Promise<Probot> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  const models = endpointSecrets(providerEndpoints(env, { baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey }));
  for (const secret of [...models, options.webhookSecret, privateKey, env.metricsToken]) processRedactor.add(secret);
  const log = await createRedactingLogger({
    level: env.logLevel,
    redactor: processRedactor,
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
    Octokit: appOctokit(throttle),
  });
}

/**
 * The app's Octokit class: Probot's (its App and installation authentication), with our write guard, GitHub's
 * remaining rate limit recorded per installation (metrics), `fetch` over
 * node:http(s) (see github/http-fetch) and the throttle settings above.
 */
function appOctokit(throttle: Record<string, unknown>): typeof ProbotOctokit {
  const fetch = createHttpFetch();
  return ProbotOctokit.plugin(githubWriteGuard(processRedactor), rateLimitPlugin).defaults(
    (o: Record<string, unknown>) => ({
      ...o,
      request: { ...(isJsonObject(o.request) ? o.request : {}), fetch },
      throttle: { ...(isJsonObject(o.throttle) ? o.throttle : {}), ...throttle },
    }),
  );
}
