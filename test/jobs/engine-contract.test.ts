import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedEngine } from "../../src/jobs/embedded-engine.js";
import type { AbandonReason, EngineJob, EngineOptions, JobEngine } from "../../src/jobs/job-engine.js";
import { createRedisEngine } from "../../src/jobs/redis-engine.js";
import { spawnScript, type ScriptProcess } from "../helpers/spawn-script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "./redis-server.js";

/**
 * The guarantees docs/architecture.md ("Jobs") says both engines give, checked against each with the same tests:
 * one job at a time per key in order, dedupe by delivery id across a restart, cancel, retries then abandonment for
 * a crashing job, lease (stall) recovery of a job whose worker was killed, and a shutdown that hands a running job
 * (or one it caught being claimed) to the next start. Engine-specific behaviour (outbox sweeps, schedules across
 * replicas, a SIGTERM'd worker process) stays in each engine's own test file.
 */
interface Rig {
  /** A new engine on this test's store; every engine opened here is on the same queue (a restart, or a replica). */
  open<T>(options?: EngineOptions<T>): JobEngine<T>;
  /** A worker in a process of its own on the same queue (test/fixtures/jobs/engine-worker.ts), once it is ready. */
  spawnWorker(config?: Record<string, unknown>): Promise<ScriptProcess>;
  /** A path in this test's scratch directory. */
  path(name: string): string;
  close(): Promise<void>;
}

/** A job's data for a spawned worker: its handler holds until this file exists. */
type Held = { holdUntil?: string };

const fast = { leaseMs: 1500, backoffMs: 20 };

/** What every rig shares: a scratch directory, the spawned workers and the engines it opened, closed in that order. */
function rigParts(
  mode: "embedded" | "redis",
  config: Record<string, unknown>,
  create: <T>(o: EngineOptions<T>) => JobEngine<T>,
) {
  const dir = mkdtempSync(join(tmpdir(), "engine-contract-"));
  const engines: JobEngine<unknown>[] = [];
  const procs: ScriptProcess[] = [];
  const rig: Rig = {
    open: <T>(options: EngineOptions<T> = {}) => {
      const e = create<T>(options);
      engines.push(e as JobEngine<unknown>);
      return e;
    },
    spawnWorker: async (extra = {}) => {
      const p = spawnScript("test/fixtures/jobs/engine-worker.ts", [
        mode,
        JSON.stringify({ ...config, ...fast, ...extra }),
      ]);
      procs.push(p);
      await p.waitFor((e) => e.ev === "ready");
      return p;
    },
    path: (name) => join(dir, name),
    close: async () => {
      for (const p of procs.splice(0)) {
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
        await p.exited;
      }
      for (const e of engines.splice(0)) await e.shutdown(0);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { rig, dir };
}

function embeddedRig(): Rig {
  let path = "";
  const { rig, dir } = rigParts("embedded", {}, <T>(options: EngineOptions<T>) =>
    createEmbeddedEngine<T>({ path, pollMs: 30, ...fast, ...options }),
  );
  path = join(dir, "db");
  return { ...rig, spawnWorker: (extra = {}) => rig.spawnWorker({ path, pollMs: 30, ...extra }) };
}

let redis: { url: string; stop: () => Promise<void> } | null = null;
let prefixes = 0;
function redisRig(): Rig {
  const prefix = `contract${++prefixes}`;
  const url = redis!.url;
  return rigParts("redis", { redisUrl: url, prefix, busyRetryMs: 50 }, <T>(options: EngineOptions<T>) =>
    createRedisEngine<T>({ redisUrl: url, prefix, busyRetryMs: 50, ...fast, ...options }),
  ).rig;
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

  it("a shutdown right after a job is claimed (its handler perhaps not begun) reports it requeued, and the next start runs it", async () => {
    // The queue counts a job running before its handler is entered. A shutdown in that window used to abort nothing:
    // Redis then waited forever for a handler that never saw an abort; the embedded engine left the job running in
    // its store, for lease recovery to find (as a lost attempt) and unreported.
    const reasons: unknown[] = [];
    const first = rig.open<null>({
      handler: async (_j, signal) => {
        if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
        reasons.push(signal.reason);
      },
    });
    await first.enqueue(job("r1", "r#1", null));
    await waitUntil(async () => (await first.stats()).running === 1, "the job to be claimed");
    // A grace period (not 0) lets a claim under way reach the point where it sees the shutdown.
    const result = await first.shutdown(200);
    expect(result.requeued.map((j) => j.id)).toEqual(["r1"]);
    for (const reason of reasons) expect(reason).toMatchObject({ reason: "shutdown" });
    const ran: EngineJob<null>[] = [];
    rig.open<null>({ handler: async (j) => void ran.push(j) });
    await waitUntil(() => ran.some((j) => j.id === "r1"), "the restarted engine to run the requeued job");
    // Put back by the shutdown, not recovered as a lost worker's job: the shutdown did not cost it an attempt.
    expect(ran.find((j) => j.id === "r1")?.attempt).toBe(1);
  });

  it("lease recovery: a worker killed mid-job loses its lease, and another worker runs the job again as its next attempt", async () => {
    const worker = await rig.spawnWorker({ attempts: 2 });
    const release = rig.path("release");
    await rig.open<Held>().enqueue(job("l1", "r#1", { holdUntil: release }));
    await worker.waitFor((e) => e.ev === "start" && e.id === "l1");
    worker.child.kill("SIGKILL");
    await worker.exited;
    writeFileSync(release, "");
    const ran: EngineJob<Held>[] = [];
    const abandoned: EngineJob<Held>[] = [];
    rig.open<Held>({ handler: async (j) => void ran.push(j), onAbandoned: (j) => void abandoned.push(j) });
    await waitUntil(() => ran.length === 1, "the job to run again once its lease lapsed");
    expect(ran[0]).toMatchObject({ id: "l1", attempt: 2 });
    expect(abandoned).toEqual([]);
  });

  it("lease recovery: a worker killed on the job's last attempt gets it reported abandoned as worker-lost, once", async () => {
    const worker = await rig.spawnWorker({ attempts: 1 });
    await rig.open<Held>().enqueue(job("l2", "r#1", { holdUntil: rig.path("never") }));
    await worker.waitFor((e) => e.ev === "start" && e.id === "l2");
    worker.child.kill("SIGKILL");
    await worker.exited;
    const ran: string[] = [];
    const abandoned: [EngineJob<Held>, AbandonReason][] = [];
    const options = {
      attempts: 1,
      handler: async (j: EngineJob<Held>) => void ran.push(j.id),
      onAbandoned: (j: EngineJob<Held>, r: AbandonReason) => void abandoned.push([j, r]),
    };
    const e = rig.open<Held>(options);
    rig.open<Held>(options);
    await waitUntil(() => abandoned.length === 1, "the job to be reported abandoned");
    // A later job of the key runs: the key is free, and by then both survivors have had every chance to report twice.
    await e.enqueue(job("l3", "r#1", {}));
    await waitUntil(() => ran.includes("l3"), "the key's next job to run");
    expect(abandoned.map(([j, r]) => [j.id, r.kind])).toEqual([["l2", "worker-lost"]]);
    expect(ran).toEqual(["l3"]);
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
