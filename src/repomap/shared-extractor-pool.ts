import { createExtractorPool, type ExtractorPool } from "./extractor-pool.js";

/** A pool borrowed for one map build; give it back with `release` (the workers stay for the next build). */
export interface PoolLease {
  pool: ExtractorPool;
  release(): void;
}

/** Workers left idle this long are stopped (a bot's jobs come in bursts; an idle worker holds its WASM heap). */
export const IDLE_MS = 60_000;

/** For tests: how pools are made, and how long an unused one lives. */
export interface LeaseOptions {
  create?: (threads: number) => ExtractorPool;
  idleMs?: number;
}

interface Shared {
  pool: ExtractorPool;
  leases: number;
  idle: ReturnType<typeof setTimeout> | null;
}

const shared = new Map<number, Shared>();

/**
 * A pool of `threads` workers shared by the map builds of this process. Starting a worker costs a few hundred
 * milliseconds (a thread, the tree-sitter runtime, each grammar compiled and then optimised by V8), as much as
 * parsing a thousand small files; a long-running bot pays that once rather than on every job. Concurrent builds
 * share the workers (jobs are answered by id). A pool with a failed worker is stopped when given back, so the next
 * build starts a fresh one.
 * Example: `const lease = leaseExtractorPool(1); try { await lease.pool.extract(p, code) } finally { lease.release() }`.
 */
export function leaseExtractorPool(threads: number, options: LeaseOptions = {}): PoolLease {
  const { create = createExtractorPool, idleMs = IDLE_MS } = options;
  let entry = shared.get(threads);
  if (!entry) {
    entry = { pool: create(threads), leases: 0, idle: null };
    shared.set(threads, entry);
  }
  const held = entry;
  if (held.idle) clearTimeout(held.idle);
  held.idle = null;
  held.leases++;
  let released = false;
  return {
    pool: held.pool,
    release() {
      if (released) return;
      released = true;
      held.leases--;
      if (!held.pool.healthy) {
        if (shared.get(threads) === held) shared.delete(threads);
        if (held.leases === 0) void held.pool.dispose();
        return;
      }
      if (held.leases > 0) return;
      held.idle = setTimeout(() => {
        if (shared.get(threads) === held) shared.delete(threads);
        void held.pool.dispose();
      }, idleMs);
      held.idle.unref();
    },
  };
}

/** Whether this process has a shared pool of `threads` workers running (leased, or idle and not yet stopped). */
export function sharedPoolRunning(threads: number): boolean {
  return shared.has(threads);
}

/** Stop every shared worker now (tests, shutdown); builds still holding a lease get `undefined` answers and parse themselves. */
export async function closeSharedExtractorPools(): Promise<void> {
  const entries = [...shared.values()];
  shared.clear();
  await Promise.all(
    entries.map((e) => {
      if (e.idle) clearTimeout(e.idle);
      return e.pool.dispose();
    }),
  );
}
