import { createAppMetrics } from "../../src/metrics/app-metrics.js";
import { countSpendRefusal, recordMetric, setMetricSink } from "../../src/metrics/record-metric.js";
import { isMetricMessage } from "../../src/metrics/metric-event.js";
import { meteredLlm } from "../../src/app/metered-llm.js";
import { histogramCount, labelValues, parseMetrics, sample } from "../helpers/scrape-metrics.js";

const scrape = async (m: ReturnType<typeof createAppMetrics>) => parseMetrics(await m.text());

describe("createAppMetrics", () => {
  afterEach(() => setMetricSink(null));

  it("shows every series from the first scrape, the configured models at zero", async () => {
    const m = createAppMetrics({ models: ["gpt-4o", "gpt-4o-mini"], shown: ["gpt-4o"], defaultMetrics: false });
    m.queueFrom(async () => ({ queued: 3, running: 1 }));
    const f = await scrape(m);
    for (const name of [
      "aider_bot_runs_total",
      "aider_bot_run_duration_seconds",
      "aider_bot_model_tokens_total",
      "aider_bot_model_cost_usd_total",
      "aider_bot_spend_refusals_total",
      "aider_bot_queue_jobs",
      "aider_bot_webhook_ack_seconds",
      "aider_bot_github_rate_limit_remaining",
    ]) {
      expect(f.map((x) => x.name)).toContain(name);
    }
    expect(labelValues(f, "aider_bot_model_tokens_total", "model")).toEqual(["gpt-4o"]);
    expect(sample(f, "aider_bot_queue_jobs", { state: "queued" })).toBe(3);
    expect(sample(f, "aider_bot_queue_jobs", { state: "running" })).toBe(1);
  });

  it("counts usage, cost, refusals, runs and acks, and bounds every label", async () => {
    const m = createAppMetrics({ models: ["gpt-4o"], defaultMetrics: false });
    setMetricSink(m.record);
    recordMetric({ type: "model-usage", model: "gpt-4o", prompt: 1000, completion: 200, costUsd: 0.0045 });
    recordMetric({
      type: "model-usage",
      model: "a model a repository named\nwith text",
      prompt: 10,
      completion: 5,
      costUsd: null,
    });
    recordMetric({
      type: "model-usage",
      model: "gpt-4o",
      prompt: Number.NaN,
      completion: -3,
      costUsd: Number.POSITIVE_INFINITY,
    });
    countSpendRefusal("repo_day_usd");
    countSpendRefusal("Repo day; DROP TABLE");
    for (let i = 0; i < 40; i++) countSpendRefusal(`limit_${i}`);
    recordMetric({ type: "rate-limit", installation: "42", remaining: 4990 });
    recordMetric({ type: "rate-limit", installation: "ghs_secret-looking", remaining: 1 });
    m.runEnded({ trigger: "comment", outcome: "pushed", seconds: 12 });
    m.runEnded({ trigger: "schedule", outcome: "something new", seconds: 3 });
    m.webhookAcked(0.004);
    const f = await scrape(m);
    expect(sample(f, "aider_bot_model_tokens_total", { model: "gpt-4o", kind: "prompt" })).toBe(1000);
    expect(sample(f, "aider_bot_model_tokens_total", { model: "gpt-4o", kind: "completion" })).toBe(200);
    expect(sample(f, "aider_bot_model_tokens_total", { model: "other", kind: "prompt" })).toBe(10);
    expect(sample(f, "aider_bot_model_cost_usd_total", { model: "gpt-4o" })).toBeCloseTo(0.0045, 10);
    expect(sample(f, "aider_bot_spend_refusals_total", { limit: "repo_day_usd" })).toBe(1);
    // A malformed name and every name past the cap count as `other`: the series stay few.
    expect(labelValues(f, "aider_bot_spend_refusals_total", "limit").length).toBeLessThanOrEqual(33);
    expect(sample(f, "aider_bot_spend_refusals_total", { limit: "other" })).toBeGreaterThanOrEqual(1 + 40 - 31);
    expect(sample(f, "aider_bot_github_rate_limit_remaining", { installation: "42" })).toBe(4990);
    expect(labelValues(f, "aider_bot_github_rate_limit_remaining", "installation").sort()).toEqual(["42", "other"]);
    expect(sample(f, "aider_bot_runs_total", { trigger: "comment", outcome: "pushed" })).toBe(1);
    expect(sample(f, "aider_bot_runs_total", { trigger: "schedule", outcome: "other" })).toBe(1);
    expect(histogramCount(f, "aider_bot_run_duration_seconds")).toBe(2);
    expect(histogramCount(f, "aider_bot_webhook_ack_seconds")).toBe(1);
    expect(await m.text()).not.toContain("DROP TABLE");
    expect(await m.text()).not.toContain("with text");
  });

  it("counts cache reads and writes by kind, apart from (and inside) the prompt tokens; the metered client reports them", async () => {
    const m = createAppMetrics({ models: ["claude-sonnet-4"], shown: ["claude-sonnet-4"], defaultMetrics: false });
    expect(
      sample(await scrape(m), "aider_bot_model_tokens_total", { model: "claude-sonnet-4", kind: "cache_read" }),
    ).toBe(0);
    setMetricSink(m.record);
    const llm = meteredLlm({
      complete: async () => ({
        text: "ok",
        finishReason: "stop",
        usage: { prompt: 27_400, completion: 300, cacheRead: 24_180, cacheWrite: 2_900 },
        usageEstimated: false,
        costUsd: 0.02,
      }),
    });
    await llm.complete({ model: "claude-sonnet-4", messages: [] });
    recordMetric({
      type: "model-usage",
      model: "claude-sonnet-4",
      prompt: 5,
      completion: 1,
      cacheRead: -4,
      costUsd: 0,
    });
    const f = await scrape(m);
    const at = (kind: string) => sample(f, "aider_bot_model_tokens_total", { model: "claude-sonnet-4", kind });
    expect([at("prompt"), at("completion"), at("cache_read"), at("cache_write")]).toEqual([27_405, 301, 24_180, 2_900]);
  });

  it("times a run's stages under the run's own stage names; any other name is not a label", async () => {
    const m = createAppMetrics({ models: [], defaultMetrics: false });
    setMetricSink(m.record);
    recordMetric({ type: "run-stage", stage: "thinking", seconds: 12 });
    recordMetric({ type: "run-stage", stage: "thinking", seconds: 3 });
    recordMetric({ type: "run-stage", stage: "cloning", seconds: 0.4 });
    recordMetric({ type: "run-stage", stage: "a stage nobody named", seconds: 1 });
    recordMetric({ type: "run-stage", stage: "lint", seconds: Number.NaN });
    // The parser keeps no labels of a histogram's series: their count lines are read from the text itself.
    const counts = (await m.text()).split("\n").filter((l) => l.startsWith("aider_bot_run_stage_seconds_count"));
    expect(counts.sort()).toEqual([
      'aider_bot_run_stage_seconds_count{stage="cloning"} 1',
      'aider_bot_run_stage_seconds_count{stage="thinking"} 2',
    ]);
    expect(isMetricMessage({ metric: { type: "run-stage", stage: "lint", seconds: 1 } })).toBe(true);
  });

  it("tells a job process's metric message from anything else it sends", () => {
    expect(isMetricMessage({ metric: { type: "spend-refusal", limit: "pr_usd" } })).toBe(true);
    expect(isMetricMessage({ metric: { type: "nope" } })).toBe(false);
    expect(isMetricMessage({ stage: "thinking" })).toBe(false);
    expect(isMetricMessage(null)).toBe(false);
  });
});
