import { createAppMetrics } from "../../src/metrics/app-metrics.js";
import { metricsAuthorized, startMetricsServer } from "../../src/metrics/metrics-endpoint.js";
import { rateLimitRemaining } from "../../src/metrics/observe-rate-limit.js";

describe("metrics endpoint", () => {
  it("requires the bearer token when one is configured", () => {
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
    expect(metricsAuthorized("Bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(metricsAuthorized("bearer  s3cret-token", "s3cret-token")).toBe(true);
    expect(metricsAuthorized("Bearer wrong", "s3cret-token")).toBe(false);
    expect(metricsAuthorized(undefined, "s3cret-token")).toBe(false);
    expect(metricsAuthorized("Basic czNjcmV0LXRva2Vu", "s3cret-token")).toBe(false);
  });

  it("serves /metrics on its own port, 401 without the token, 404 elsewhere", async () => {
    const metrics = createAppMetrics({ models: ["gpt-4o"], defaultMetrics: false });
    const errors: unknown[] = [];
    const server = await startMetricsServer({
      metrics,
      port: 0,
      host: "127.0.0.1",
      token: "s3cret-token",
      onError: (e) => errors.push(e),
    });
    try {
      const denied = await fetch(server.url);
      expect(denied.status).toBe(401);
      expect(await denied.text()).not.toContain("s3cret-token");
      const ok = await fetch(server.url, { headers: { authorization: "Bearer s3cret-token" } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toContain("text/plain");
      expect(await ok.text()).toContain("# TYPE aider_bot_runs_total counter");
      expect((await fetch(server.url.replace("/metrics", "/healthz"))).status).toBe(404);
    } finally {
      await server.close();
    }
    expect(errors).toEqual([]);
  });

  it("reads GitHub's remaining rate limit from response headers", () => {
    expect(rateLimitRemaining({ "x-ratelimit-remaining": "4999" })).toBe(4999);
    expect(rateLimitRemaining({ "x-ratelimit-remaining": 0 })).toBe(0);
    expect(rateLimitRemaining({})).toBeNull();
    expect(rateLimitRemaining({ "x-ratelimit-remaining": "lots" })).toBeNull();
    expect(rateLimitRemaining(undefined)).toBeNull();
  });
});
