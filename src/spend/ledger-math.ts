import type { Limit } from "./spend-limits.js";

/** An amount of spend: integer micro-dollars and tokens. */
export interface Amount {
  usdMicros: number;
  tokens: number;
  /** Of `tokens`, the prompt tokens read from the provider's prompt cache (absent: none, or an older record). */
  cacheRead?: number;
}

/** What is held for a call in flight, until it is settled or `untilMs` passes (its process died). */
export interface Hold extends Amount {
  untilMs: number;
}

/** One bucket of the ledger (a repository's day, a pull request, …): spent so far, and the holds of calls in flight. */
export interface BucketState {
  spent: Amount;
  /** Calls whose price was unknown: their tokens count, their cost could not. */
  unpriced: number;
  holds: Record<string, Hold>;
}

export function emptyBucket(): BucketState {
  return { spent: { usdMicros: 0, tokens: 0 }, unpriced: 0, holds: {} };
}

/** The live holds' total (expired ones no longer count). */
export function heldAmount(bucket: BucketState, nowMs: number): Amount {
  let usdMicros = 0;
  let tokens = 0;
  for (const hold of Object.values(bucket.holds)) {
    if (hold.untilMs <= nowMs) continue;
    usdMicros += hold.usdMicros;
    tokens += hold.tokens;
  }
  return { usdMicros, tokens };
}

/** Which cap a reservation would cross, with what was spent and held there. */
export interface Crossing {
  /** Index of the bucket in the request. */
  index: number;
  unit: "usd" | "tokens";
  spent: number;
  held: number;
  limit: number;
  asked: number;
}

export type ReserveOutcome = { ok: true; buckets: BucketState[] } | { ok: false; crossing: Crossing };

/**
 * Hold `amount` in every bucket under id `id`, or refuse when any bucket's spent + live holds + amount would cross its
 * limit. All or nothing: a refusal changes no bucket. Expired holds are dropped from the buckets it touches.
 */
export function reserve(
  buckets: readonly BucketState[],
  limits: readonly Limit[],
  id: string,
  amount: Amount,
  untilMs: number,
  nowMs: number,
): ReserveOutcome {
  for (const [index, bucket] of buckets.entries()) {
    const limit = limits[index] ?? {};
    const held = heldAmount(bucket, nowMs);
    if (limit.usdMicros !== undefined && bucket.spent.usdMicros + held.usdMicros + amount.usdMicros > limit.usdMicros) {
      return {
        ok: false,
        crossing: {
          index,
          unit: "usd",
          spent: bucket.spent.usdMicros,
          held: held.usdMicros,
          limit: limit.usdMicros,
          asked: amount.usdMicros,
        },
      };
    }
    if (limit.tokens !== undefined && bucket.spent.tokens + held.tokens + amount.tokens > limit.tokens) {
      return {
        ok: false,
        crossing: {
          index,
          unit: "tokens",
          spent: bucket.spent.tokens,
          held: held.tokens,
          limit: limit.tokens,
          asked: amount.tokens,
        },
      };
    }
  }
  return {
    ok: true,
    buckets: buckets.map((bucket) => ({
      ...bucket,
      holds: { ...liveHolds(bucket, nowMs), [id]: { ...amount, untilMs } },
    })),
  };
}

/**
 * Release hold `id` and add what the call really used. The real usage counts even when the hold has expired or was
 * never made (a call's tokens are spent whether or not its hold outlived it); `unpriced` marks a call whose cost
 * is unknown.
 */
export function settle(
  buckets: readonly BucketState[],
  id: string,
  used: Amount,
  unpriced: boolean,
  nowMs: number,
): BucketState[] {
  return buckets.map((bucket) => {
    const holds = liveHolds(bucket, nowMs);
    delete holds[id];
    const cacheRead = (bucket.spent.cacheRead ?? 0) + nonNegative(used.cacheRead ?? 0);
    return {
      spent: {
        usdMicros: bucket.spent.usdMicros + nonNegative(used.usdMicros),
        tokens: bucket.spent.tokens + nonNegative(used.tokens),
        ...(cacheRead > 0 ? { cacheRead } : {}),
      },
      unpriced: bucket.unpriced + (unpriced ? 1 : 0),
      holds,
    };
  });
}

function liveHolds(bucket: BucketState, nowMs: number): Record<string, Hold> {
  const out: Record<string, Hold> = {};
  for (const [id, hold] of Object.entries(bucket.holds)) if (hold.untilMs > nowMs) out[id] = hold;
  return out;
}

const nonNegative = (n: number) => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0);
