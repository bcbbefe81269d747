import { Octokit } from "@octokit/core";
import { jsonField } from "./json-field.js";
import { enterpriseCompatibility } from "@octokit/plugin-enterprise-compatibility";
import { paginateRest } from "@octokit/plugin-paginate-rest";
import { restEndpointMethods } from "@octokit/plugin-rest-endpoint-methods";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { createHttpFetch } from "./http-fetch.js";
import { githubWriteGuard } from "./guard-github-writes.js";
import type { SecretRedactor } from "../security/redact-secrets.js";

/** Retries after GitHub's primary or secondary rate limit (the plugin waits the `retry-after` GitHub gave). */
export const LIMIT_RETRIES = 2;

/**
 * The throttle plugin's handlers: a warning, and a retry after GitHub's `retry-after` up to {@link LIMIT_RETRIES}
 * times, for the primary and the secondary limit alike (Probot's defaults retry the primary one forever).
 */
export function rateLimitHandlers(log: { warn(obj: object, msg: string): void }) {
  // The plugin retries when the handler returns true (its types say `void`, which a boolean-returning function fits).
  const handler =
    (kind: string) =>
    (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
      const again = retryCount < LIMIT_RETRIES;
      log.warn({ method: options.method, url: options.url, retryAfter, again }, `GitHub ${kind} rate limit`);
      return again;
    };
  return { onRateLimit: handler("primary"), onSecondaryRateLimit: handler("secondary") };
}

/** A debug line per GitHub call: method, URL and status, never the request's body. */
function requestLogging(octokit: Octokit): void {
  const line = (options: Parameters<typeof octokit.request.endpoint.parse>[0], status: unknown) => {
    const { method, url } = octokit.request.endpoint.parse(options);
    octokit.log.debug(`GitHub request: ${method} ${url} - ${String(status)}`);
  };
  octokit.hook.after("request", (response, options) => line(options, response.status));
  octokit.hook.error("request", (error, options) => {
    line(options, jsonField(error, "status") ?? "failed");
    throw error;
  });
}

/**
 * The GitHub client class of a job process and of the Action, which hold a token and nothing else: Octokit with
 * the plugins Probot's own class has (throttling, retries, pagination, REST methods, GHES compatibility), our write
 * guard, and `fetch` over node:http(s) (see github/http-fetch). Built without Probot: importing Probot, for its
 * webhooks, HTTP server and OAuth code that a job never uses, cost every job process ~0.23 s of CPU. Construct it
 * with `auth: token` and a `log`.
 */
export function tokenOctokit(
  redactor: SecretRedactor,
  options: { throttle: boolean; log: { warn(obj: object, msg: string): void } },
) {
  const fetch = createHttpFetch();
  return Octokit.plugin(
    throttling,
    retry,
    paginateRest,
    restEndpointMethods,
    enterpriseCompatibility,
    requestLogging,
    githubWriteGuard(redactor),
  ).defaults({
    userAgent: "aider-bot",
    request: { fetch },
    throttle: { enabled: options.throttle, ...rateLimitHandlers(options.log) },
  });
}

/** An instance of {@link tokenOctokit}'s class. */
export type TokenOctokit = InstanceType<ReturnType<typeof tokenOctokit>>;
