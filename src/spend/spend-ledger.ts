import type { Amount, BucketState, Crossing } from "./ledger-math.js";
import type { Limit } from "./spend-limits.js";

/** A bucket as a store sees it: its key, its limit, how long to keep it. */
export interface LedgerBucket {
  key: string;
  limit: Limit;
  ttlMs: number;
}

/**
 * The durable spend ledger shared by every process of the app: LMDB when embedded (`createLmdbLedger`), Redis when
 * scaled out (`createRedisLedger`). Both run the same arithmetic (ledger-math) atomically across processes.
 */
export interface SpendLedger {
  /** Hold `amount` under `id` in every bucket, or refuse (changing nothing) when one would cross its limit. */
  reserve(
    buckets: readonly LedgerBucket[],
    id: string,
    amount: Amount,
    untilMs: number,
    nowMs: number,
  ): Promise<{ ok: true } | { ok: false; crossing: Crossing }>;
  /** Release hold `id` and add the real usage. */
  settle(buckets: readonly LedgerBucket[], id: string, used: Amount, unpriced: boolean, nowMs: number): Promise<void>;
  /** The buckets as they are (an unknown key reads as empty). */
  read(keys: readonly string[]): Promise<BucketState[]>;
  close(): Promise<void>;
}
