import { APIError } from "openai";
import { ProviderHttpError } from "./provider-http-error.js";

export interface BackoffOptions {
  /** First delay before jitter (ms). */
  baseDelayMs: number;
  /** Upper bound of one computed delay (ms). */
  maxDelayMs: number;
  /** Returns [0, 1); injected for tests. */
  random: () => number;
}

/**
 * Exponential backoff with "equal jitter": half the doubled delay is fixed, half random, so many clients that failed
 * together do not retry together.
 */
export function backoffMs(attempt: number, opts: BackoffOptions): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
  return Math.round(exp / 2 + (exp / 2) * opts.random());
}

/**
 * How long the endpoint asked us to wait, from `retry-after-ms` (OpenAI, Azure) or `retry-after` (seconds or an
 * HTTP date), capped at `capMs`; null when the error carries no such header.
 */
export function retryAfterMs(error: unknown, capMs: number, now: () => number = Date.now): number | null {
  const headers = error instanceof APIError || error instanceof ProviderHttpError ? error.headers : undefined;
  if (!headers) return null;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, capMs);
  const raw = headers.get("retry-after");
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.min(Math.max(0, seconds * 1000), capMs);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now()), capMs);
}
