import path from "node:path";
import type { SpendLedger } from "./spend-ledger.js";

/**
 * The app's ledger: in Redis when `redisUrl` is set (shared by every worker), else in `<dataDir>/spend` (LMDB,
 * shared by every process on that data dir). ioredis is loaded only for Redis.
 */
export async function openSpendLedger(o: { redisUrl?: string | undefined; dataDir: string }): Promise<SpendLedger> {
  if (o.redisUrl) {
    const { createRedisLedger } = await import("./redis-ledger.js");
    return createRedisLedger(o.redisUrl);
  }
  const { createLmdbLedger } = await import("./lmdb-ledger.js");
  return createLmdbLedger(path.join(o.dataDir, "spend"));
}
