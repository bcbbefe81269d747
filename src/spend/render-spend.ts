import { formatNumber } from "../format-number.js";
import type { Crossing } from "./ledger-math.js";
import type { PlannedBucket } from "./plan-buckets.js";
import { fromMicros, type LimitScope } from "./spend-limits.js";

const NAMES: Record<LimitScope, { what: string; key: string }> = {
  run: { what: "this run's", key: "max" },
  pr: { what: "this pull request's or issue's", key: "pr" },
  "repo-day": { what: "this repository's daily", key: "day" },
  "repo-month": { what: "this repository's monthly", key: "month" },
  "installation-day": { what: "this installation's daily", key: "installation_day" },
  "installation-month": { what: "this installation's monthly", key: "installation_month" },
};

/** `$1.2345` from micro-dollars. */
export const dollars = (micros: number) => `$${fromMicros(micros).toFixed(micros < 10_000_000 ? 4 : 2)}`;

/** `2026-11-29 00:00 (Europe/Berlin)`: an instant as the zone's wall clock. */
export function wallClock(ms: number, timeZone: string): string {
  const parts: Record<string, string> = {};
  const f = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  });
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} (${timeZone})`;
}

/** When a bucket's limit lifts, in words. */
export function resetText(bucket: PlannedBucket): string {
  if (bucket.resetsAtMs === null || bucket.timeZone === null) {
    return bucket.scope === "run"
      ? "It does not reset: it is the limit of one run."
      : "It does not reset: it covers the whole pull request or issue.";
  }
  return `It resets at ${wallClock(bucket.resetsAtMs, bucket.timeZone)}.`;
}

/**
 * The refusal of a model call: which limit, what was spent (and is held by calls in flight), what the call needed,
 * when the limit resets, and what to do.
 */
export function renderRefusal(bucket: PlannedBucket, crossing: Crossing, unknownPrice: boolean): string {
  const name = NAMES[bucket.scope];
  const amount = crossing.unit === "usd" ? dollars : (n: number) => `${formatNumber(n)} tokens`;
  const held = crossing.held > 0 ? ` (${amount(crossing.held)} more held by calls in flight)` : "";
  const unit = crossing.unit === "usd" ? "usd" : "tokens";
  const who = bucket.scope.startsWith("installation")
    ? "the operator's budget file (`AIDER_BOT_BUDGET_FILE`)"
    : `\`budget.${name.key}_${unit}\` in \`.github/aider.yml\` (up to the operator's limit)`;
  return [
    `Spend limit reached: ${name.what} limit is ${amount(crossing.limit)}; ${amount(crossing.spent)} spent${held}, and the next model call could use up to ${amount(crossing.asked)}.`,
    unknownPrice && crossing.unit === "tokens" ? "The model's price is unknown, so only its tokens are counted." : "",
    resetText(bucket),
    `No model call was made. To allow more, raise ${who}.`,
  ]
    .filter(Boolean)
    .join(" ");
}
