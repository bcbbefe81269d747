import { claimStoreDir } from "./claim-store-dir.js";
import { createEmbeddedEngine } from "./embedded-engine.js";
import type { EngineOptions, JobEngine } from "./job-engine.js";

export interface JobEngineConfig<T> extends EngineOptions<T> {
  /** Set: BullMQ on this Redis, shared by every receiver and worker. Unset: the embedded store in `dataDir`. */
  redisUrl?: string;
  /** Where the embedded store lives (one directory per deployment). */
  dataDir: string;
  /** Namespace of the Redis keys; deployments sharing one Redis need different prefixes. */
  prefix?: string;
}

/**
 * The engine for this deployment: Redis when `REDIS_URL` is configured, the embedded LMDB store otherwise. BullMQ and
 * ioredis load only for Redis: importing them cost every embedded app ~0.3 s of CPU at start.
 */
export async function createJobEngine<T>(config: JobEngineConfig<T>): Promise<JobEngine<T>> {
  const { redisUrl, dataDir, prefix, ...options } = config;
  if (!redisUrl) {
    // One store, one app: a second live process on the same folder is refused before the store opens.
    const claim = claimStoreDir(dataDir);
    try {
      const engine = await createEmbeddedEngine<T>({ ...options, path: dataDir });
      return { ...engine, shutdown: (graceMs) => engine.shutdown(graceMs).finally(() => claim.release()) };
    } catch (error) {
      claim.release();
      throw error;
    }
  }
  const { createRedisEngine } = await import("./redis-engine.js");
  return createRedisEngine<T>({ ...options, redisUrl, prefix });
}
