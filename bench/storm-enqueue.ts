/**
 * The job engine's share of a webhook ack: 200 deliveries enqueued at once, each delivered twice (a redelivery
 * storm), into the embedded store and, when REDIS_URL is set, into Redis. Prints enqueue latency percentiles and
 * how many were accepted (must be 200: no loss, no duplicate). `npx tsx bench/storm-enqueue.ts`
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedEngine } from "../src/jobs/embedded-engine.js";
import type { JobEngine } from "../src/jobs/job-engine.js";
import { createRedisEngine } from "../src/jobs/redis-engine.js";

const N = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function storm(name: string, engine: JobEngine<{ n: number }>): Promise<void> {
  const run = `${Date.now()}`;
  // Warm up (open files, load scripts): a storm hits a running server, not a cold one.
  await engine.enqueue({ id: `${run}-warm`, key: "o/r#warm", installationId: 1, kind: "run", data: { n: -1 } });
  const times: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 2 * N }, async (_, i) => {
      const n = i % N;
      const t0 = performance.now();
      const added = await engine.enqueue({
        id: `${run}-${n}`,
        key: `o/r#${n % 20}`,
        installationId: 1 + (n % 5),
        kind: "run",
        data: { n },
      });
      times.push(performance.now() - t0);
      return added;
    }),
  );
  times.sort((a, b) => a - b);
  const accepted = results.filter(Boolean).length;
  const stats = await engine.stats();
  console.log(
    `${name}: ${2 * N} enqueues (${N} ids, each twice): accepted ${accepted} (want ${N}), queued ${stats.queued - 1}; ` +
      `latency p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
  );
  await engine.shutdown(0);
}

export async function runStormEnqueueBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "storm-enqueue-"));
  try {
    await storm("embedded (lmdb)", createEmbeddedEngine({ path: dir }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl) await storm("redis (bullmq)", createRedisEngine({ redisUrl, prefix: `bench-${Date.now()}` }));
  else console.log("redis (bullmq): skipped, set REDIS_URL to measure it");
}

if (import.meta.url === `file://${process.argv[1]}`) await runStormEnqueueBench();
