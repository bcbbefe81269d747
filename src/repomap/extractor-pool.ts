// Hand-written, kept (`npm run bench libs pool`, docs/performance.md "Libraries and hand-written code"):
// extracting 600 files' tags on one thread with the caller's window of 32 in flight, piscina 5 and tinypool 2 took
// 1.76× and 1.49× our time including the pool's start (parsers load per worker), 0.90× and 1.19× once started
// (medians of 5, shared 2-core machine under load). Neither wins by a margin users would see, and this pool keeps
// what they would need wrapping for: a failed or dead worker hands its files back to the caller's thread (the map
// never depends on the pool), and an idle pool does not hold the process open.
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Result } from "../result.js";

/** A file to extract, sent to a worker. */
export interface ExtractRequest {
  id: number;
  relPath: string;
  content: string;
}

/**
 * A worker's answer to request `id`: the encoded tags (tag-blob.ts), null when the language is not parsed; or why
 * the extraction failed.
 */
export type ExtractReply = { id: number } & Result<Uint8Array | null, "extract-failed">;

/** Tag extraction on worker threads; see {@link createExtractorPool}. */
export interface ExtractorPool {
  /** Worker threads it runs (some may still be starting). */
  readonly threads: number;
  /** Extract one file on a worker: its blob, null when not parsed, or `undefined` when the pool cannot (use the caller's thread). */
  extract(relPath: string, content: string): Promise<Uint8Array | null | undefined>;
  /** Jobs sent and not answered yet. */
  readonly pending: number;
  /** False once a worker has failed (its jobs came back as `undefined`). */
  readonly healthy: boolean;
  /** Stop the workers. */
  dispose(): Promise<void>;
}

/** One worker thread of the pool: whether it still answers, and how many jobs it owes. */
interface WorkerSlot {
  worker: Worker;
  alive: boolean;
  load: number;
}

/** Worker threads used by default: one fewer than the cores (the caller's thread parses too), at most 7. */
export function defaultThreads(): number {
  return Math.max(0, Math.min(7, availableParallelism() - 1));
}

/**
 * Worker threads that extract tags (a parse is pure CPU in WASM, so a cold map of thousands of files scales with
 * cores). Each worker loads its own parsers. A worker that fails to start or dies answers its jobs with
 * `undefined`, and the caller extracts those itself: the map never depends on the pool working. `entry` (the code
 * a worker starts with) is for tests.
 * Example: `const pool = createExtractorPool(2); const blob = await pool.extract("a.ts", code); await pool.dispose();`
 */
export function createExtractorPool(threads: number, entry: { code: string } | null = workerEntry()): ExtractorPool {
  const waiting = new Map<number, { resolve: (b: Uint8Array | null | undefined) => void; slot: WorkerSlot }>();
  let nextId = 0;
  const slots: WorkerSlot[] = entry
    ? Array.from({ length: threads }, () => {
        const worker = new Worker(entry.code, { eval: true });
        const slot: WorkerSlot = { worker, alive: true, load: 0 };
        worker.on("message", (reply: ExtractReply) => {
          const job = waiting.get(reply.id);
          if (!job) return;
          waiting.delete(reply.id);
          if (--slot.load === 0) worker.unref();
          // A failed extraction goes back to the caller's thread, which parses it again and reports its own error.
          job.resolve(reply.ok ? reply.value : undefined);
        });
        const fail = (): void => {
          slot.alive = false;
          for (const [id, job] of waiting) {
            if (job.slot !== slot) continue;
            waiting.delete(id);
            job.resolve(undefined);
          }
        };
        worker.on("error", fail);
        worker.on("exit", fail);
        // A worker keeps the process alive only while it owes answers (an idle shared one must not). After the
        // listeners: adding a "message" listener refs the worker's port again.
        worker.unref();
        return slot;
      })
    : [];
  return {
    threads: slots.length,
    get pending() {
      return waiting.size;
    },
    get healthy() {
      return slots.every((slot) => slot.alive);
    },
    extract(relPath, content) {
      let least: WorkerSlot | undefined;
      for (const slot of slots) if (slot.alive && (!least || slot.load < least.load)) least = slot;
      if (!least) return Promise.resolve(undefined);
      const slot = least;
      const id = nextId++;
      if (slot.load++ === 0) slot.worker.ref();
      return new Promise((resolve) => {
        waiting.set(id, { resolve, slot });
        const request: ExtractRequest = { id, relPath, content };
        slot.worker.postMessage(request);
      });
    },
    async dispose() {
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

/**
 * The code a worker starts with: import the compiled tag-worker.js; when running from TypeScript sources (tsx,
 * tests), first register tsx's loader in the worker, which does not inherit the caller's. Null when neither works.
 */
function workerEntry(): { code: string } | null {
  const self = import.meta.url;
  if (!self.endsWith(".ts")) {
    return { code: `import(${JSON.stringify(new URL("../repomap/tag-worker.js", self).href)});` };
  }
  try {
    // The package's `import` build of tsx/esm/api sits next to the `require` one that createRequire finds; the
    // latter cannot register the loader from a worker.
    const api = pathToFileURL(
      createRequire(self)
        .resolve("tsx/esm/api")
        .replace(/\.cjs$/, ".mjs"),
    ).href;
    const target = new URL("../repomap/tag-worker.ts", self).href;
    return {
      code: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(target)}); });`,
    };
  } catch {
    // tsx not installed (a build without dev dependencies running sources): no pool, the caller's thread parses all.
    return null;
  }
}
