import { APIError } from "openai";
import { backoffMs, retryAfterMs } from "../../src/llm/retry-delay.js";

const withHeaders = (h: Record<string, string>) => new APIError(429, undefined, "slow down", new Headers(h));

describe("retry delays", () => {
  it("doubles per attempt with half of each delay random, up to the cap", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, { ...opts, random: () => 0 }))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(backoffMs(1, { ...opts, random: () => 0.999 })).toBe(200);
  });

  it("reads retry-after-ms, retry-after seconds and HTTP dates, capped", () => {
    const now = () => Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(withHeaders({ "retry-after-ms": "250", "retry-after": "9" }), 60_000)).toBe(250);
    expect(retryAfterMs(withHeaders({ "retry-after": "1.5" }), 60_000)).toBe(1500);
    expect(retryAfterMs(withHeaders({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), 60_000, now)).toBe(7000);
    expect(retryAfterMs(withHeaders({ "retry-after": "120" }), 60_000)).toBe(60_000);
    expect(retryAfterMs(withHeaders({}), 60_000)).toBeNull();
    expect(retryAfterMs(new Error("no headers"), 60_000)).toBeNull();
  });
});
