import { startE2EApp, type E2EApp } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "../jobs/redis-server.js";
import { histogramCount, parseMetrics, sample } from "../helpers/scrape-metrics.js";

const TOKEN = "e2e-metrics-token-for-workers";
const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";

/** The `/metrics` URL a process logged ("metrics listening"), from its log text. */
const metricsUrl = (log: string): string | undefined =>
  /"url":"(http:\/\/[^"]+\/metrics)"[^\n]*"msg":"metrics listening"/.exec(log)?.[1];

describeWith("redis", "e2e: /metrics of a receiver and a worker on their own ports", () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let app: E2EApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    // Port 0: each process picks a free port and logs it.
    app = await startE2EApp({
      workers: { redisUrl: redis.url, count: 1 },
      env: { AIDER_BOT_METRICS_PORT: "0", AIDER_BOT_METRICS_TOKEN: TOKEN, AIDER_BOT_SCHEDULES: "off" },
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it("the worker counts its runs and model usage, the receiver its webhook acks; neither serves /metrics on the webhook port", async () => {
    const e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const receiverLog = e2e.logs().replace(app.workerLogs().join("\n"), "");
    await waitUntil(
      () => metricsUrl(app.workerLogs()[0]!) !== undefined && metricsUrl(receiverLog) !== undefined,
      () => `no "metrics listening" line:\n${e2e.logs().slice(-3000)}`,
    );
    const scrape = async (url: string) =>
      parseMetrics(await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text());
    const worker = metricsUrl(app.workerLogs()[0]!)!;
    const receiver = metricsUrl(receiverLog)!;
    expect((await fetch(`${new URL(e2e.webhookUrl).origin}/metrics`)).status).toBe(404);
    expect((await fetch(worker)).status).toBe(401);

    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    const w = await scrape(worker);
    expect(sample(w, "aider_bot_runs_total", { trigger: "comment", outcome: "pushed" })).toBe(1);
    expect(histogramCount(w, "aider_bot_run_duration_seconds")).toBe(1);
    expect(sample(w, "aider_bot_model_tokens_total", { model: "gpt-4o", kind: "completion" })).toBeGreaterThan(0);
    expect(sample(w, "aider_bot_github_rate_limit_remaining", { installation: "1" })).toBeGreaterThan(0);
    const r = await scrape(receiver);
    expect(histogramCount(r, "aider_bot_webhook_ack_seconds")).toBeGreaterThanOrEqual(1);
    expect(sample(r, "aider_bot_runs_total", { trigger: "comment", outcome: "pushed" })).toBe(0);
  });
});
