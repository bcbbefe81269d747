import { resolve } from "node:path";
import { open } from "lmdb";
import { emptyBucket, reserve, settle, type BucketState } from "./ledger-math.js";
import type { SpendLedger } from "./spend-ledger.js";

/**
 * The spend ledger in its own LMDB file (beside the job stores, under the data dir). Every reserve and settle is one
 * asynchronous LMDB write transaction: LMDB takes its write lock across processes, so the app and its job processes,
 * or several embedded processes on one data dir, never interleave a read and a write of a bucket. Buckets are JSON
 * values keyed by their name; old periods are dropped once their time-to-live has passed.
 */
export function createLmdbLedger(path: string): SpendLedger {
  const db = open<BucketState & { expiresAtMs?: number }, string>({ path: resolve(path), compression: false });
  const get = (key: string, nowMs: number): BucketState => {
    const stored = db.get(key);
    if (!stored || (stored.expiresAtMs !== undefined && stored.expiresAtMs <= nowMs)) return emptyBucket();
    return { spent: stored.spent, unpriced: stored.unpriced, holds: stored.holds };
  };
  return {
    reserve: (buckets, id, amount, untilMs, nowMs) =>
      db.transaction(() => {
        const outcome = reserve(
          buckets.map((b) => get(b.key, nowMs)),
          buckets.map((b) => b.limit),
          id,
          amount,
          untilMs,
          nowMs,
        );
        if (!outcome.ok) return { ok: false as const, crossing: outcome.crossing };
        // One state per bucket, in the buckets' order (here and in settle).
        outcome.buckets.forEach((state, i) =>
          db.putSync(buckets[i]!.key, { ...state, expiresAtMs: nowMs + buckets[i]!.ttlMs }),
        );
        return { ok: true as const };
      }),
    settle: async (buckets, id, used, unpriced, nowMs) => {
      await db.transaction(() => {
        const next = settle(
          buckets.map((b) => get(b.key, nowMs)),
          id,
          used,
          unpriced,
          nowMs,
        );
        next.forEach((state, i) => db.putSync(buckets[i]!.key, { ...state, expiresAtMs: nowMs + buckets[i]!.ttlMs }));
      });
    },
    read: async (keys) => {
      // Outside a write transaction a read sees this handle's last snapshot, which may predate another process's (or
      // another handle's) commit: start from the latest one, so the usage shown includes every write made so far.
      db.resetReadTxn();
      return keys.map((key) => get(key, Date.now()));
    },
    close: () => db.close(),
  };
}
