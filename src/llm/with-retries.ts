// Hand-written, kept (`npm run bench libs retries`, docs/performance.md): beside the OpenAI SDK's own
// `maxRetries` (switched off in create-llm-client.ts), on the same scripted failures. Both wait as asked for a short
// `retry-after`(-ms) and back off on a bare 503. The SDK waits for whatever `retry-after` says (5 s in the bench: it
// answered after 5.1 s; a `retry-after: 3600` holds a run an hour), where ours fails at once past its cap (30 s) so a
// fallback model takes the call; the SDK retries 409 and 501, which ours reports at once with what to do; it does not
// retry a stream that fails after its headers, which ours does; its sleep ignores the run's abort signal. Overhead is
// the same order (one extra promise per attempt); what users see decided.
import { classifyError, type ErrorContext } from "./classify-error.js";
import { LlmError } from "./llm-error.js";
import { backoffMs, retryAfterMs, type BackoffOptions } from "./retry-delay.js";

/** The part of a pino/Probot logger we use. */
export interface LlmLogger {
  warn(obj: object, msg?: string): void;
}

/** Sleep that may be cut short by the signal; injected in tests so they never wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryPolicy extends BackoffOptions {
  maxRetries: number;
  /** Largest `retry-after` we wait for; a longer ask fails the call at once (so a fallback model can take it). */
  maxRetryAfterMs: number;
  sleep: Sleep;
  logger?: LlmLogger;
}

/**
 * Run `attempt` until it succeeds, a non-retryable error occurs, the signal aborts, or `maxRetries` retries are
 * spent. Every failure leaves as an {@link LlmError}; after spent retries its message says how many attempts ran.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  ctx: ErrorContext,
  signal?: AbortSignal,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (raw) {
      const error = classifyError(raw, ctx);
      if (signal?.aborted) throw new LlmError("aborted", "The model request was cancelled.");
      if (!error.retryable) throw error;
      if (n >= policy.maxRetries) {
        const tries = n + 1;
        throw new LlmError(error.kind, `${error.message} (gave up after ${tries} attempt${tries === 1 ? "" : "s"})`, {
          ...(error.status !== undefined ? { status: error.status } : {}),
          retryable: true,
        });
      }
      // An endpoint asking for a longer wait than the bound is not waited for at all (a 429 with `retry-after: 3600`
      // once held a run for an hour): the call fails now, and a fallback model, if any, takes it.
      const asked = retryAfterMs(raw, Number.POSITIVE_INFINITY);
      if (asked !== null && asked > policy.maxRetryAfterMs) {
        throw new LlmError(
          error.kind,
          `${error.message} (it asked to wait ${Math.ceil(asked / 1000)} s, longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s a run waits)`,
          {
            ...(error.status !== undefined ? { status: error.status } : {}),
            retryable: true,
          },
        );
      }
      const delayMs = asked ?? backoffMs(n, policy);
      policy.logger?.warn(
        { kind: error.kind, status: error.status, attempt: n + 1, delayMs },
        "model request failed; retrying",
      );
      await policy.sleep(delayMs, signal);
      if (signal?.aborted) throw new LlmError("aborted", "The model request was cancelled.");
    }
  }
}

/** A timer-based sleep that resolves early when the signal aborts. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(handle);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const handle = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
