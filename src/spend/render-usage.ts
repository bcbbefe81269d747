import { formatNumber } from "../format-number.js";
import { heldAmount, type BucketState } from "./ledger-math.js";
import { planBuckets, type PlannedBucket } from "./plan-buckets.js";
import { dollars, resetText } from "./render-spend.js";
import type { SpendLedger } from "./spend-ledger.js";
import type { SpendLimits } from "./spend-limits.js";

/** The reply to `/aider usage`: this repository's spend today and this month against its limits. */
export async function repositoryUsage(o: {
  ledger: SpendLedger;
  installationId: number;
  owner: string;
  repo: string;
  limits: SpendLimits;
  nowMs: number;
}): Promise<string> {
  const all = planBuckets(
    { installationId: o.installationId, owner: o.owner, repo: o.repo, runId: "-" },
    o.limits,
    o.nowMs,
  );
  const shown = all.filter((b) => b.scope !== "run" && b.scope !== "pr");
  const states = await o.ledger.read(shown.map((b) => b.key));
  return renderUsage(shown, states, o.nowMs);
}

const LABELS: Record<string, string> = {
  "repo-day": "This repository today",
  "repo-month": "This repository this month",
  "installation-day": "This installation today",
  "installation-month": "This installation this month",
};

/** The usage table (pure). */
export function renderUsage(buckets: readonly PlannedBucket[], states: readonly BucketState[], nowMs: number): string {
  const rows = buckets.map((bucket, i) => {
    const state = states[i]!; // one state per bucket, in order
    const held = heldAmount(state, nowMs);
    const cost = `${dollars(state.spent.usdMicros)}${bucket.limit.usdMicros !== undefined ? ` of ${dollars(bucket.limit.usdMicros)}` : ""}`;
    const tokens = `${formatNumber(state.spent.tokens)}${bucket.limit.tokens !== undefined ? ` of ${formatNumber(bucket.limit.tokens)}` : ""}`;
    const flight = held.tokens > 0 ? ` (+${formatNumber(held.tokens)} held)` : "";
    const cached = state.spent.cacheRead ? `, ${formatNumber(state.spent.cacheRead)} read from cache` : "";
    const reset = resetText(bucket)
      .replace(/^It resets at /, "")
      .replace(/\.$/, "");
    return `| ${LABELS[bucket.scope] ?? bucket.scope} | ${cost}${state.unpriced ? ` + ${state.unpriced} call${state.unpriced === 1 ? "" : "s"} of unknown cost` : ""} | ${tokens}${cached}${flight} | ${reset} |`;
  });
  const unlimited = buckets.every((b) => b.limit.usdMicros === undefined && b.limit.tokens === undefined);
  return [
    "**Model spend**",
    "",
    "| | cost | tokens | resets |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    unlimited
      ? "No daily or monthly limit is set. Set `budget.day_usd` / `budget.month_usd` (or `_tokens`) in `.github/aider.yml` to cap this repository."
      : "Limits come from `.github/aider.yml` (`budget`) and the operator's budget file; a repository can lower the operator's limits, never raise them.",
  ].join("\n");
}
