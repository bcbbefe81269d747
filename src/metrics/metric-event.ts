/**
 * One observation a process makes for the app's metrics. A job process has no registry of its own that anyone
 * scrapes: it sends these to its parent over the job's IPC channel, and the parent applies them to its registry
 * (see {@link createAppMetrics}). Values are counts and names, never text from GitHub or the model.
 */
export type MetricEvent =
  /**
   * One model call's usage (`costUsd` null when the model has no known price); `cacheRead`/`cacheWrite` are the
   * prompt tokens the provider's cache served or stored (part of `prompt`).
   */
  | {
      type: "model-usage";
      model: string;
      prompt: number;
      completion: number;
      cacheRead?: number;
      cacheWrite?: number;
      costUsd: number | null;
    }
  /** A spend limit refused a model call before it was made; `limit` is a fixed name such as `repo_day_usd`. */
  | { type: "spend-refusal"; limit: string }
  /** GitHub's `x-ratelimit-remaining` after a call made for this installation (`app` for the App's own calls). */
  | { type: "rate-limit"; installation: string; remaining: number }
  /** Connections a sandbox's network policy refused (`policy`: none, registries or open). */
  | { type: "egress-block"; policy: string; count: number }
  /** A run left one of its stages (run-stages.ts) after `seconds` in it. */
  | { type: "run-stage"; stage: string; seconds: number };

/** The envelope a job process sends its parent (through fork-worker's `send`). */
export interface MetricMessage {
  metric: MetricEvent;
}

const TYPES: readonly string[] = ["model-usage", "spend-refusal", "rate-limit", "egress-block", "run-stage"];

/** Whether a message from a job process carries a metric (anything else it sends is left to other readers). */
export function isMetricMessage(message: unknown): message is MetricMessage {
  const metric = (message as { metric?: { type?: unknown } } | null)?.metric;
  return (
    typeof metric === "object" && metric !== null && typeof metric.type === "string" && TYPES.includes(metric.type)
  );
}
