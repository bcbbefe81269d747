import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { boundedLabel, learnedLabel, OTHER } from "./bounded-label.js";
import type { MetricEvent } from "./metric-event.js";
import { RUN_STAGES } from "../run-stages.js";

/** What started a run: a command comment, a label, a review comment, the CI autofix, a schedule (or its "run now"). */
export const RUN_TRIGGERS = ["comment", "label", "review", "ci", "schedule"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** How a run ended: its outcome's kind, or `crashed` when its process died or threw. */
export const RUN_OUTCOMES = [
  "pushed",
  "pull-request",
  "patch",
  "not-pushed",
  "answered",
  "reverted",
  "nothing-to-do",
  "refused",
  "error",
  "cancelled",
  "crashed",
] as const;

export interface AppMetrics {
  readonly registry: Registry;
  /** The Prometheus text of every series (what `/metrics` answers). */
  text(): Promise<string>;
  contentType: string;
  /** Apply one observation, from this process or forwarded by a job process. */
  record(event: MetricEvent): void;
  /** One run ended. */
  runEnded(run: { trigger: RunTrigger; outcome: string; seconds: number }): void;
  /** One webhook delivery was answered, `seconds` after its request arrived. */
  webhookAcked(seconds: number): void;
  /** Where `aider_bot_queue_jobs` reads its values at scrape time. */
  queueFrom(stats: () => Promise<{ queued: number; running: number }>): void;
}

/**
 * The app's Prometheus registry (prom-client), one per receiver or worker process. Every label is bounded: models
 * are the operator's configured ones (the rest count as `other`), triggers and outcomes are fixed sets,
 * installations and limit names are checked for shape and capped in number. Nothing from GitHub or the model
 * becomes a label.
 */
export function createAppMetrics(options: {
  /** Model names that may be a label (the operator's models and price table); any other counts as `other`. */
  models: readonly string[];
  /** Models whose series start at zero (the default and weak model), so a graph has them before any call. */
  shown?: readonly string[];
  /** Node's process metrics (CPU, memory, event-loop lag) under `aider_bot_` (default on). */
  defaultMetrics?: boolean;
}): AppMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "aider_bot_" });
  const models = new Set(options.models.filter((m) => m.length > 0 && m.length <= 100));
  const triggers: ReadonlySet<string> = new Set(RUN_TRIGGERS);
  const outcomes: ReadonlySet<string> = new Set(RUN_OUTCOMES);
  const series = defineSeries([registry]);
  let stats: (() => Promise<{ queued: number; running: number }>) | null = null;
  defineQueueGauge([registry], () => stats);
  // Every series shows from the first scrape (at zero), so a dashboard and an alert have something to read.
  const shown = (options.shown ?? []).filter((m) => models.has(m));
  for (const kind of TOKEN_KINDS) for (const model of shown) series.tokens.inc({ model, kind }, 0);
  for (const model of shown) series.cost.inc({ model }, 0);
  for (const trigger of RUN_TRIGGERS) series.runs.inc({ trigger, outcome: "pushed" }, 0);
  return {
    registry,
    text: () => registry.metrics(),
    contentType: registry.contentType,
    record: eventRecorder(series, models),
    runEnded(run) {
      series.runs.inc({
        trigger: boundedLabel(run.trigger, triggers),
        outcome: outcomes.has(run.outcome) ? run.outcome : OTHER,
      });
      series.runDuration.observe(run.seconds);
    },
    webhookAcked: (seconds) => series.webhookAck.observe(seconds),
    queueFrom(next) {
      stats = next;
    },
  };
}

/** The app's own series, registered in `registers` (the queue gauge aside: see {@link defineQueueGauge}). */
function defineSeries(registers: Registry[]) {
  const runs = new Counter({
    name: "aider_bot_runs_total",
    help: "Runs ended, by what started them and how they ended.",
    labelNames: ["trigger", "outcome"],
    registers,
  });
  const runDuration = new Histogram({
    name: "aider_bot_run_duration_seconds",
    help: "Wall time of a run's job, from its process start to its outcome.",
    buckets: [5, 15, 30, 60, 120, 300, 600, 1200, 2400],
    registers,
  });
  const tokens = new Counter({
    name: "aider_bot_model_tokens_total",
    help: "Model tokens used, by model and kind: prompt, completion, and of the prompt tokens those read from (cache_read) or written to (cache_write) the provider's prompt cache.",
    labelNames: ["model", "kind"],
    registers,
  });
  const cost = new Counter({
    name: "aider_bot_model_cost_usd_total",
    help: "Model spend in USD (calls whose model has a known price).",
    labelNames: ["model"],
    registers,
  });
  const calls = new Counter({
    name: "aider_bot_model_calls_total",
    help: "Model calls answered, by model and whether their price was known.",
    labelNames: ["model", "priced"],
    registers,
  });
  const refusals = new Counter({
    name: "aider_bot_spend_refusals_total",
    help: "Model calls refused before they were made because a spend limit would be crossed.",
    labelNames: ["limit"],
    registers,
  });
  const egressBlocks = new Counter({
    name: "aider_bot_sandbox_egress_blocked_total",
    help: "Connections from a sandbox that its network policy refused, by policy.",
    labelNames: ["policy"],
    registers,
  });
  const webhookAck = new Histogram({
    name: "aider_bot_webhook_ack_seconds",
    help: "Time from a webhook request's arrival to its answer.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const stageTime = new Histogram({
    name: "aider_bot_run_stage_seconds",
    help: "Time a run spent in each stage of its status comment (cloning, mapping, thinking, applying, lint, tests, pushing).",
    labelNames: ["stage"],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const rateLimit = new Gauge({
    name: "aider_bot_github_rate_limit_remaining",
    help: "GitHub's x-ratelimit-remaining after the last call, per installation (app: the App's own).",
    labelNames: ["installation"],
    registers,
  });
  return { runs, runDuration, tokens, cost, calls, refusals, egressBlocks, webhookAck, rateLimit, stageTime };
}

type Series = ReturnType<typeof defineSeries>;

/** `aider_bot_queue_jobs`, read at scrape time from the engine's stats (none until `queueFrom` names them). */
function defineQueueGauge(
  registers: Registry[],
  stats: () => (() => Promise<{ queued: number; running: number }>) | null,
): void {
  new Gauge({
    name: "aider_bot_queue_jobs",
    help: "Jobs (triage and runs) queued and running across the cluster, read at scrape time.",
    labelNames: ["state"],
    registers,
    async collect() {
      const read = stats();
      if (!read) return;
      const s = await read();
      this.set({ state: "queued" }, s.queued);
      this.set({ state: "running" }, s.running);
    },
  });
}

/** The `kind` label of `aider_bot_model_tokens_total`: the cache kinds are parts of `prompt`, not added to it. */
const TOKEN_KINDS = ["prompt", "completion", "cache_read", "cache_write"] as const;

/** Apply one observation to the series; models outside `models`, bad installations and limit names become `other`. */
function eventRecorder(
  { tokens, cost, calls, refusals, egressBlocks, rateLimit, stageTime }: Series,
  models: ReadonlySet<string>,
): (event: MetricEvent) => void {
  const installation = learnedLabel(/^(app|[0-9]{1,20})$/, 1_000);
  const limit = learnedLabel(/^[a-z][a-z0-9_]{0,39}$/, 32);
  return (event: MetricEvent) => {
    switch (event.type) {
      case "model-usage": {
        const model = boundedLabel(event.model, models);
        if (Number.isFinite(event.prompt) && event.prompt > 0) tokens.inc({ model, kind: "prompt" }, event.prompt);
        if (Number.isFinite(event.completion) && event.completion > 0)
          tokens.inc({ model, kind: "completion" }, event.completion);
        const { cacheRead, cacheWrite } = event;
        if (typeof cacheRead === "number" && Number.isFinite(cacheRead) && cacheRead > 0)
          tokens.inc({ model, kind: "cache_read" }, cacheRead);
        if (typeof cacheWrite === "number" && Number.isFinite(cacheWrite) && cacheWrite > 0)
          tokens.inc({ model, kind: "cache_write" }, cacheWrite);
        if (event.costUsd !== null && Number.isFinite(event.costUsd) && event.costUsd >= 0)
          cost.inc({ model }, event.costUsd);
        calls.inc({ model, priced: event.costUsd === null ? "false" : "true" });
        return;
      }
      case "spend-refusal":
        refusals.inc({ limit: limit(event.limit) });
        return;
      case "egress-block":
        if (["none", "registries", "open"].includes(event.policy) && Number.isFinite(event.count) && event.count > 0)
          egressBlocks.inc({ policy: event.policy }, event.count);
        return;
      case "run-stage":
        // Only the run's own stage names become a label; a duration must be a real one.
        if (
          (RUN_STAGES as readonly string[]).includes(event.stage) &&
          Number.isFinite(event.seconds) &&
          event.seconds >= 0
        )
          stageTime.observe({ stage: event.stage }, event.seconds);
        return;
      case "rate-limit":
        if (Number.isFinite(event.remaining) && event.remaining >= 0)
          rateLimit.set({ installation: installation(event.installation) }, event.remaining);
        return;
    }
  };
}
