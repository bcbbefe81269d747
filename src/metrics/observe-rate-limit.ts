import { recordMetric } from "./record-metric.js";

interface RequestHooks {
  hook: { after(name: "request", fn: (response: { headers?: Record<string, unknown> }) => void): void };
}

/** GitHub's `x-ratelimit-remaining` of one response, or null when absent (GHES with limits off, a fake). */
export function rateLimitRemaining(headers: Record<string, unknown> | undefined): number | null {
  const raw = headers?.["x-ratelimit-remaining"];
  const n = typeof raw === "string" || typeof raw === "number" ? Number(raw) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Record every response's remaining rate limit for `installation` on one Octokit instance (a job process's client). */
export function observeRateLimit(octokit: RequestHooks, installation: string): void {
  octokit.hook.after("request", (response) => {
    const remaining = rateLimitRemaining(response.headers);
    if (remaining !== null) recordMetric({ type: "rate-limit", installation, remaining });
  });
}

/**
 * The same as an Octokit plugin, for Probot's class: an installation client is labelled with its installation id
 * (Probot builds it with `auth.installationId`), the App's own client with `app`.
 * `ProbotOctokit.plugin(rateLimitPlugin)`
 */
export function rateLimitPlugin(octokit: RequestHooks, options: { auth?: unknown }): void {
  const id = (options.auth as { installationId?: unknown } | undefined)?.installationId;
  observeRateLimit(octokit, typeof id === "number" || typeof id === "string" ? String(id) : "app");
}
