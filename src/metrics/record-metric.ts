import type { MetricEvent } from "./metric-event.js";

type Sink = (event: MetricEvent) => void;

/** Where this process's observations go: the app's registry in a receiver or worker, the parent in a job process. */
let sink: Sink | null = null;

/**
 * Route this process's observations: `createApp` points them at its registry, a job process at its IPC channel to
 * the parent. Until then (the CLI, the Action, unit tests) they are dropped. Returns the previous sink.
 */
export function setMetricSink(next: Sink | null): Sink | null {
  const previous = sink;
  sink = next;
  return previous;
}

/** Record one observation; never throws (a metric must not fail a run). */
export function recordMetric(event: MetricEvent): void {
  try {
    sink?.(event);
  } catch {
    // A closed IPC channel or a bad value: the observation is lost, the run goes on.
  }
}

/**
 * Count one model call a spend limit refused, by the limit's fixed name (`run_usd`, `pr_usd`, `repo_day_usd`,
 * `installation_month_tokens`…, never free text). Callable from any process: a job process forwards it to its
 * parent, whose `/metrics` shows it as `aider_bot_spend_refusals_total{limit}`.
 */
export function countSpendRefusal(limit: string): void {
  recordMetric({ type: "spend-refusal", limit });
}
