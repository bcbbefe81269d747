import { APIError } from "openai";
import { LlmError } from "../../src/llm/llm-error.js";
import { defaultSleep, withRetries, type RetryPolicy } from "../../src/llm/with-retries.js";

const ctx = { model: "gpt-4o", baseUrl: "https://llm.example.com/v1", apiKey: "sk-live-0123456789abcdef" };
const status = (code: number, headers: Record<string, string> = {}, message = "failed") =>
  new APIError(code, undefined, message, new Headers(headers));

/** A policy whose sleeps are recorded, never waited (the delays are the subject, not the time). */
function policy(overrides: Partial<RetryPolicy> = {}) {
  const slept: number[] = [];
  const warned: object[] = [];
  const p: RetryPolicy = {
    maxRetries: 2,
    maxRetryAfterMs: 60_000,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    random: () => 0,
    sleep: async (ms) => void slept.push(ms),
    logger: { warn: (obj) => void warned.push(obj) },
    ...overrides,
  };
  return { p, slept, warned };
}

/** An attempt that throws each of `errors` in turn, then answers "ok"; `calls()` counts the attempts. */
function failing(...errors: unknown[]) {
  let n = 0;
  return {
    attempt: async () => {
      const e = errors[n++];
      if (e !== undefined) throw e;
      return "ok";
    },
    calls: () => n,
  };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e as LlmError,
  );

describe("withRetries", () => {
  it("retries retryable failures with backoff and returns the first answer", async () => {
    const { p, slept, warned } = policy();
    const a = failing(status(503), status(500));
    expect(await withRetries(a.attempt, p, ctx)).toBe("ok");
    expect(a.calls()).toBe(3);
    expect(slept).toEqual([50, 100]); // equal jitter with random 0: half of 100, then half of 200
    expect(warned).toEqual([
      { kind: "server", status: 503, attempt: 1, delayMs: 50 },
      { kind: "server", status: 500, attempt: 2, delayMs: 100 },
    ]);
  });

  it("does not retry a failure that will not clear up (401, 400, 501)", async () => {
    for (const code of [401, 400, 501]) {
      const { p, slept } = policy();
      const a = failing(status(code));
      const err = await rejection(withRetries(a.attempt, p, ctx));
      expect(err).toBeInstanceOf(LlmError);
      expect(err.retryable).toBe(false);
      expect(a.calls()).toBe(1);
      expect(slept).toEqual([]);
    }
  });

  it("gives up after maxRetries, saying how many attempts ran and keeping the status", async () => {
    const { p } = policy({ maxRetries: 1 });
    const a = failing(status(502), status(502), status(502));
    const err = await rejection(withRetries(a.attempt, p, ctx));
    expect(a.calls()).toBe(2);
    expect(err).toMatchObject({ kind: "server", status: 502, retryable: true });
    expect(err.message).toMatch(/\(gave up after 2 attempts\)$/);
    const once = policy({ maxRetries: 0 });
    expect((await rejection(withRetries(failing(status(429)).attempt, once.p, ctx))).message).toMatch(
      /gave up after 1 attempt\)$/,
    );
  });

  it("waits what retry-after asks, and fails at once when it asks longer than maxRetryAfterMs", async () => {
    const { p, slept } = policy({ maxRetryAfterMs: 30_000 });
    expect(await withRetries(failing(status(429, { "retry-after": "2" })).attempt, p, ctx)).toBe("ok");
    expect(slept).toEqual([2_000]);
    const long = policy({ maxRetryAfterMs: 30_000 });
    const a = failing(status(429, { "retry-after": "3600" }));
    const err = await rejection(withRetries(a.attempt, long.p, ctx));
    expect(a.calls()).toBe(1);
    expect(long.slept).toEqual([]);
    expect(err).toMatchObject({ kind: "rate-limited", status: 429, retryable: true });
    expect(err.message).toMatch(/asked to wait 3600 s, longer than the 30 s a run waits/);
  });

  it("stops as cancelled when the signal aborts during a failure or during the wait", async () => {
    const controller = new AbortController();
    controller.abort();
    const { p } = policy();
    const a = failing(status(503));
    expect(await rejection(withRetries(a.attempt, p, ctx, controller.signal))).toMatchObject({ kind: "aborted" });
    expect(a.calls()).toBe(1);

    const during = new AbortController();
    const b = failing(status(503), status(503));
    const waitAborted = policy({ sleep: async () => during.abort() });
    expect(await rejection(withRetries(b.attempt, waitAborted.p, ctx, during.signal))).toMatchObject({
      kind: "aborted",
    });
    expect(b.calls()).toBe(1);
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
