import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedEngine } from "../../src/jobs/embedded-engine.js";
import type { AbandonReason, EngineJob, EngineOptions, JobEngine } from "../../src/jobs/job-engine.js";
import { createRedisEngine } from "../../src/jobs/redis-engine.js";
import { waitUntil } from "../helpers/wait-until.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "./redis-server.js";

/**
 * The guarantees docs/architecture.md ("Jobs") says both engines give, checked against each with the same tests:
 * one job at a time per key in order, dedupe by delivery id across a restart, cancel, retries then abandonment for
 * a crashing job, and a shutdown that hands a running job to the next start. Engine-specific behaviour (leases,
 * outbox sweeps, processes killed with -9) stays in each engine's own test file.
 */
interface Rig {
  /** A new engine on this test's store; every engine opened here is on the same queue (a restart, or a replica). */
  open<T>(options?: EngineOptions<T>): JobEngine<T>;
  close(): Promise<void>;
}

const fast = { leaseMs: 1500, backoffMs: 20 };

function embeddedRig(): Rig {
  const dir = mkdtempSync(join(tmpdir(), "engine-contract-"));
  const engines: JobEngine<unknown>[] = [];
  return {
    open: <T>(options: EngineOptions<T> = {}) => {
      const e = createEmbeddedEngine<T>({ path: join(dir, "db"), pollMs: 30, ...fast, ...options });
      engines.push(e as JobEngine<unknown>);
      return e;
    },
    close: async () => {
      for (const e of engines.splice(0)) await e.shutdown(0);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let redis: { url: string; stop: () => Promise<void> } | null = null;
let prefixes = 0;
function redisRig(): Rig {
  const prefix = `contract${++prefixes}`;
  const engines: JobEngine<unknown>[] = [];
  return {
    open: <T>(options: EngineOptions<T> = {}) => {
      const e = createRedisEngine<T>({ redisUrl: redis!.url, prefix, busyRetryMs: 50, ...fast, ...options });
      engines.push(e as JobEngine<unknown>);
      return e;
    },
    close: async () => {
      for (const e of engines.splice(0)) await e.shutdown(0);
    },
  };
}

const job = <T>(id: string, key: string, data: T) => ({ id, key, installationId: 1, kind: "run" as const, data });

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

function contract(makeRig: () => Rig): void {
  let rig: Rig;
  beforeEach(() => {
    rig = makeRig();
  });
  afterEach(() => rig.close());

  it("runs one job at a time per key, in the order enqueued, while another key runs beside it", async () => {
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const e = rig.open<string>({
      concurrency: 2,
      perInstallation: 5,
      handler: async (j) => {
        log.push(`start ${j.data}`);
        const g = gate();
        gates.set(j.data, g);
        await g.promise;
        log.push(`end ${j.data}`);
      },
    });
    for (const [id, key] of [
      ["a1", "r#1"],
      ["a2", "r#1"],
      ["a3", "r#1"],
      ["b1", "r#2"],
    ])
      await e.enqueue(job(id!, key!, id!));
    await waitUntil(
      () => log.includes("start a1") && log.includes("start b1"),
      () => log.join("\n"),
    );
    expect(log).not.toContain("start a2");
    gates.get("b1")!.open();
    gates.get("a1")!.open();
    await waitUntil(
      () => gates.has("a2"),
      () => log.join("\n"),
    );
    gates.get("a2")!.open();
    await waitUntil(
      () => gates.has("a3"),
      () => log.join("\n"),
    );
    gates.get("a3")!.open();
    await waitUntil(
      () => log.filter((l) => l.startsWith("end")).length === 4,
      () => log.join("\n"),
    );
    const a = log.filter((l) => / a\d$/.test(l));
    expect(a).toEqual(["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]);
  });

  it("takes a delivery id once, also after the engine is restarted on the same store", async () => {
    const first = rig.open<null>();
    expect(await first.enqueue(job("d1", "r#1", null))).toBe(true);
    expect(await first.enqueue(job("d1", "r#1", null))).toBe(false);
    await first.shutdown(0);
    const ran: string[] = [];
    const second = rig.open<null>({ handler: async (j) => void ran.push(j.id) });
    expect(await second.enqueue(job("d1", "r#1", null))).toBe(false);
    expect(await second.enqueue(job("d2", "r#1", null))).toBe(true);
    await waitUntil(
      () => ran.length === 2,
      () => `ran: ${ran.join(", ")}`,
    );
    expect(ran).toEqual(["d1", "d2"]);
  });

  it("cancel aborts the key's running job with reason cancel and drops its queued one, leaving other keys alone", async () => {
    const reasons: unknown[] = [];
    const ran: string[] = [];
    const other = gate();
    const e = rig.open<null>({
      concurrency: 2,
      perInstallation: 5,
      handler: async (j, signal) => {
        ran.push(j.id);
        if (j.key === "r#2") return other.promise;
        await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
        reasons.push(signal.reason);
      },
    });
    await e.enqueue(job("x1", "r#1", null));
    await e.enqueue(job("x2", "r#1", null));
    await e.enqueue(job("y1", "r#2", null));
    await waitUntil(
      () => ran.includes("x1") && ran.includes("y1"),
      () => ran.join(", "),
    );
    expect(await e.cancel("r#1")).toEqual({ dropped: 1, aborted: 1 });
    await waitUntil(() => reasons.length === 1, "the running job to see its abort");
    expect(reasons[0]).toMatchObject({ reason: "cancel" });
    other.open();
    await waitUntil(async () => (await e.stats()).running === 0, "the other key's job to end");
    expect(ran).not.toContain("x2");
    expect((await e.stats()).queued).toBe(0);
  });

  it("runs a crashing job again up to its attempts, then reports it abandoned once", async () => {
    const attempts: number[] = [];
    const abandoned: [EngineJob<null>, AbandonReason][] = [];
    const e = rig.open<null>({
      attempts: 3,
      handler: async (j) => {
        attempts.push(j.attempt);
        throw new Error("kaboom");
      },
      onAbandoned: (j, reason) => void abandoned.push([j, reason]),
    });
    await e.enqueue(job("c1", "r#1", null));
    await waitUntil(
      () => abandoned.length === 1,
      () => `attempts: ${attempts.join(", ")}`,
    );
    expect(attempts).toEqual([1, 2, 3]);
    expect(abandoned[0]![0].id).toBe("c1");
    expect(abandoned[0]![1]).toMatchObject({ kind: "crashed", message: "kaboom" });
  });

  it("a shutdown right after a job is claimed (its handler perhaps not begun) requeues it instead of waiting on it", async () => {
    // Redis: the queue counts a job running before its handler is entered; a shutdown in that window used to abort
    // nothing and then wait forever for a handler that never saw an abort.
    const reasons: unknown[] = [];
    const first = rig.open<null>({
      handler: async (_j, signal) => {
        if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
        reasons.push(signal.reason);
      },
    });
    await first.enqueue(job("r1", "r#1", null));
    await waitUntil(async () => (await first.stats()).running === 1, "the job to be claimed");
    const result = await first.shutdown(0);
    // The shutdown returns; the job is reported (Redis) or, claimed but not yet handed to its handler (embedded), left
    // for the next start's lease recovery. Either way it is not lost.
    expect(result.requeued.map((j) => j.id).filter((id) => id !== "r1")).toEqual([]);
    for (const reason of reasons) expect(reason).toMatchObject({ reason: "shutdown" });
    const ran: string[] = [];
    rig.open<null>({ handler: async (j) => void ran.push(j.id) });
    await waitUntil(() => ran.includes("r1"), "the restarted engine to run the requeued job");
  });

  it("a shutdown cuts off a running job with reason shutdown, reports it requeued, and the next start runs it", async () => {
    const reasons: unknown[] = [];
    let entered = false;
    const first = rig.open<null>({
      handler: async (_j, signal) => {
        entered = true;
        await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
        reasons.push(signal.reason);
      },
    });
    await first.enqueue(job("s1", "r#1", null));
    // Its handler has begun (the queue's "running" count can come before the handler is called).
    await waitUntil(() => entered, "the job's handler to start");
    const result = await first.shutdown(0);
    expect(result.requeued.map((j) => j.id)).toEqual(["s1"]);
    expect(reasons[0]).toMatchObject({ reason: "shutdown" });
    const ran: string[] = [];
    rig.open<null>({ handler: async (j) => void ran.push(j.id) });
    await waitUntil(() => ran.includes("s1"), "the restarted engine to run the requeued job");
  });
}

describe("job engine contract: embedded (lmdb)", () => contract(embeddedRig));

describeWith("redis", "job engine contract: redis (BullMQ)", () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  contract(redisRig);
});
