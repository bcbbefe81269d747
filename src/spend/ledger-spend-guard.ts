import { randomUUID } from "node:crypto";
import type { SpendDecision, SpendEstimate, SpendGuard } from "../llm/spend-guard.js";
import type { TokenUsage } from "../llm/types.js";
import type { Amount } from "./ledger-math.js";
import { planBuckets, type SpendScope } from "./plan-buckets.js";
import { renderRefusal } from "./render-spend.js";
import type { SpendLedger } from "./spend-ledger.js";
import { toMicros, type SpendLimits } from "./spend-limits.js";

export interface LedgerGuardOptions {
  ledger: SpendLedger;
  scope: SpendScope;
  limits: SpendLimits;
  now?: () => number;
  /** How long a hold outlives a process that died before settling it (default 1 hour). */
  holdMs?: number;
  /** Told of every refusal (metrics, logs). */
  onRefused?: (limit: string) => void;
}

/**
 * The {@link SpendGuard} of one run over the shared ledger: each call holds its estimate in the run's, the pull
 * request's, the repository's and the installation's buckets (for today and this month in their time zones) and
 * settles what it used. The buckets are fixed at reserve time, so a call that crosses midnight is counted on the
 * day it started.
 */
export function createLedgerGuard(o: LedgerGuardOptions): SpendGuard {
  const now = o.now ?? Date.now;
  const held = new Map<string, ReturnType<typeof planBuckets>>();
  return {
    async reserve(estimate: SpendEstimate): Promise<SpendDecision> {
      const at = now();
      const buckets = planBuckets(o.scope, o.limits, at);
      const id = randomUUID();
      const { cacheRead: _notYet, ...amount } = amountOf(estimate.tokens, estimate.costUsd); // a hold is no read
      const outcome = await o.ledger.reserve(buckets, id, amount, at + (o.holdMs ?? 3_600_000), at);
      if (outcome.ok) {
        held.set(id, buckets);
        return { ok: true, id };
      }
      const bucket = buckets[outcome.crossing.index]!; // the ledger names the crossed bucket by its index in `buckets`
      o.onRefused?.(bucket.scope);
      return {
        ok: false,
        limit: bucket.scope,
        message: renderRefusal(bucket, outcome.crossing, estimate.costUsd === null),
      };
    },
    async settle(id, used) {
      const buckets = held.get(id);
      if (!buckets) return;
      held.delete(id);
      const amount = amountOf(used.tokens, used.costUsd);
      await o.ledger.settle(buckets, id, amount, used.costUsd === null, now());
    },
  };
}

/**
 * Whole, non-negative micro-dollars and tokens. The amounts come from a job process over IPC: whatever it sends, a
 * negative or non-numeric amount can never shrink what is held or spent.
 */
function amountOf(tokens: TokenUsage, costUsd: number | null): Amount {
  const whole = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.ceil(n) : 0);
  const usd = typeof costUsd === "number" && Number.isFinite(costUsd) && costUsd > 0 ? toMicros(costUsd) : 0;
  const prompt = whole(tokens?.prompt);
  const cacheRead = Math.min(whole(tokens?.cacheRead), prompt);
  return { usdMicros: usd, tokens: prompt + whole(tokens?.completion), ...(cacheRead > 0 ? { cacheRead } : {}) };
}
