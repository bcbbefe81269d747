import { APIConnectionError, APIError } from "openai";
import { LlmError } from "../../src/llm/llm-error.js";
import { defaultSleep, withRetries, type RetryPolicy } from "../../src/llm/with-retries.js";

const ctx = { model: "m", baseUrl: "https://llm.example/v1", apiKey: "sk-secret-key-123" };
const status = (code: number, headers: Record<string, string> = {}) =>
  new APIError(code, undefined, `status ${code}`, new Headers(headers));

/** A policy whose sleep records the delays asked for and returns at once (no test waits). */
function policy(extra: Partial<RetryPolicy> = {}) {
  const slept: number[] = [];
  const warned: object[] = [];
  const p: RetryPolicy = {
    maxRetries: 3,
    maxRetryAfterMs: 60_000,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    random: () => 0,
    sleep: async (ms) => void slept.push(ms),
    logger: { warn: (obj) => void warned.push(obj) },
    ...extra,
  };
  return { p, slept, warned };
}

/** An attempt that throws each of `errors` in turn, then returns "ok". */
function failing(...errors: unknown[]) {
  let calls = 0;
  const attempt = async () => {
    const e = errors[calls++];
    if (e !== undefined) throw e;
    return "ok";
  };
  return { attempt, calls: () => calls };
}

describe("withRetries", () => {
  it("retries a retryable failure with backoff and returns the first success, logging each retry", async () => {
    const { p, slept, warned } = policy();
    const a = failing(status(503), new APIConnectionError({ message: "reset" }));
    await expect(withRetries(a.attempt, p, ctx)).resolves.toBe("ok");
    expect(a.calls()).toBe(3);
    expect(slept).toEqual([50, 100]);
    expect(warned).toEqual([
      expect.objectContaining({ kind: "server", status: 503, attempt: 1, delayMs: 50 }),
      expect.objectContaining({ kind: "network", attempt: 2, delayMs: 100 }),
    ]);
  });

  it("does not retry a failure that will not clear up (a rejected key), and passes its message on", async () => {
    const { p, slept } = policy();
    const a = failing(status(401));
    const error = await withRetries(a.attempt, p, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: "auth", status: 401 });
    expect(a.calls()).toBe(1);
    expect(slept).toEqual([]);
  });

  it("gives up after maxRetries retries and says how many attempts ran", async () => {
    const { p } = policy({ maxRetries: 2 });
    const a = failing(status(429), status(429), status(429), status(429));
    const error = await withRetries(a.attempt, p, ctx).catch((e: unknown) => e);
    expect(a.calls()).toBe(3);
    expect(error).toMatchObject({ kind: "rate-limited", status: 429, retryable: true });
    expect((error as Error).message).toMatch(/gave up after 3 attempts\)$/);
  });

  it("says 'attempt' for one: maxRetries 0 makes one call", async () => {
    const { p } = policy({ maxRetries: 0 });
    const error = await withRetries(failing(status(500)).attempt, p, ctx).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/gave up after 1 attempt\)$/);
  });

  it("waits what the endpoint asks (retry-after) instead of its own backoff", async () => {
    const { p, slept } = policy();
    await withRetries(failing(status(429, { "retry-after": "2" })).attempt, p, ctx);
    expect(slept).toEqual([2000]);
  });

  it("fails at once when the endpoint asks for a longer wait than a run waits, naming both", async () => {
    const { p, slept } = policy({ maxRetryAfterMs: 30_000 });
    const a = failing(status(429, { "retry-after": "3600" }));
    const error = await withRetries(a.attempt, p, ctx).catch((e: unknown) => e);
    expect(a.calls()).toBe(1);
    expect(slept).toEqual([]);
    expect((error as Error).message).toMatch(/asked to wait 3600 s, longer than the 30 s a run waits/);
    expect(error).toMatchObject({ status: 429, retryable: true });
  });

  it("a cancel during the wait ends the retries with a cancelled error", async () => {
    const controller = new AbortController();
    const { p } = policy({ sleep: async () => controller.abort() });
    const a = failing(status(503), status(503));
    const error = await withRetries(a.attempt, p, ctx, controller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "aborted", message: "The model request was cancelled." });
    expect(a.calls()).toBe(1);
  });

  it("a failure after the signal aborted is reported as cancelled, not retried", async () => {
    const controller = new AbortController();
    const { p, slept } = policy();
    const attempt = async () => {
      controller.abort();
      throw status(503);
    };
    await expect(withRetries(attempt, p, ctx, controller.signal)).rejects.toMatchObject({ kind: "aborted" });
    expect(slept).toEqual([]);
  });

  it("never puts the API key in the message of an error it gives up with", async () => {
    const { p } = policy({ maxRetries: 1 });
    const leak = new Error(`socket hang up calling with ${ctx.apiKey}`);
    const error = await withRetries(failing(leak, leak).attempt, p, ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "network" });
    expect((error as Error).message).not.toContain(ctx.apiKey);
  });

  it("defaultSleep resolves at once for an aborted signal, and early when the signal aborts", async () => {
    const aborted = new AbortController();
    aborted.abort();
    await defaultSleep(3_600_000, aborted.signal); // would hang the test if it waited
    const later = new AbortController();
    const sleeping = defaultSleep(3_600_000, later.signal);
    later.abort();
    await sleeping;
  });
});
