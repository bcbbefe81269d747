import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedEngine } from "../../src/jobs/embedded-engine.js";
import type { AbandonReason, EngineJob, JobEngine, JobHandler } from "../../src/jobs/job-engine.js";
import { WAIT_MS } from "../helpers/timeouts.js";
import { spawnScript, type ScriptProcess } from "../helpers/spawn-script.js";
import { waitUntil } from "../helpers/wait-until.js";

/** Poll for `condition` (the suite's one polling helper); a timeout says what was awaited and, with `seen`, what was seen. */
const until = (condition: () => boolean | Promise<boolean>, what: string, seen?: () => string) =>
  waitUntil(condition, () => `waiting for ${what}${seen ? `\n${seen()}` : ""}`);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const fast = { pollMs: 30, leaseMs: 1500, backoffMs: 20 };
let dir: string;
const engines: JobEngine<unknown>[] = [];
const procs: ScriptProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "embedded-engine-"));
});
afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  for (const e of engines.splice(0)) await e.shutdown(0);
  rmSync(dir, { recursive: true, force: true });
});

function engine<T>(handler: JobHandler<T> | undefined, extra: Record<string, unknown> = {}) {
  const abandoned: [EngineJob<T>, AbandonReason][] = [];
  const e = createEmbeddedEngine<T>({
    path: join(dir, "db"),
    handler,
    ...fast,
    onAbandoned: (j, r) => void abandoned.push([j, r]),
    ...extra,
  });
  engines.push(e as JobEngine<unknown>);
  return { e, abandoned };
}

const job = <T = unknown>(id: string, key: string, data: T = {} as T, installationId = 1) => ({
  id,
  key,
  installationId,
  kind: "run" as const,
  data,
});

describe("embedded job engine", () => {
  it("runs one job at a time per key in order, others in parallel up to the limit", async () => {
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const { e } = engine<string>(
      async (j) => {
        log.push(`start ${j.data}`);
        const g = deferred();
        gates.set(j.data, g);
        await g.promise;
        log.push(`end ${j.data}`);
      },
      { concurrency: 2, perInstallation: 5 },
    );
    await e.enqueue(job("1", "r#1", "a1"));
    await e.enqueue(job("2", "r#1", "a2"));
    await e.enqueue(job("3", "r#2", "b1"));
    await e.enqueue(job("4", "r#3", "c1"));
    await until(() => log.length === 2, "two starts");
    expect(log).toEqual(["start a1", "start b1"]);
    expect(await e.stats()).toEqual({ queued: 2, running: 2, workers: 1 });
    gates.get("a1")!.resolve();
    await until(() => log.includes("start a2") || log.includes("start c1"), "a next start");
    gates.get("b1")!.resolve();
    await until(() => log.includes("start a2") && log.includes("start c1"), "a2 and c1");
    gates.get("a2")!.resolve();
    gates.get("c1")!.resolve();
    await until(() => log.filter((l) => l.startsWith("end")).length === 4, "all ends");
    expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
  });

  it("looks for work only once `quiet` resolves (a receiver's wave of deliveries is answered first)", async () => {
    const started: string[] = [];
    let quiet = deferred();
    let asked = 0;
    const { e } = engine<string>(
      async (j) => {
        started.push(j.data);
      },
      {
        quiet: () => {
          asked++;
          return quiet.promise;
        },
      },
    );
    await e.enqueue(job("a", "k1", "a"));
    await e.enqueue(job("b", "k2", "b"));
    await until(() => asked > 0, "a pump asking whether the intake is quiet");
    // A later store write: the store commits writes in order, so a claim made without waiting for `quiet` would be
    // committed (its jobs marked running) before this one returns.
    await e.enqueue(job("c", "k3", "c"));
    expect(await e.stats()).toMatchObject({ queued: 3, running: 0 });
    expect(started).toEqual([]);
    quiet.resolve();
    quiet = { promise: Promise.resolve(), resolve: () => undefined };
    await until(() => started.length === 3, "the jobs to start once the intake is quiet");
    expect(started.sort()).toEqual(["a", "b", "c"]);
  });

  it("holds the per-installation limit", async () => {
    let running = 0;
    let peak = 0;
    let finished = 0;
    const gates: ReturnType<typeof deferred>[] = [];
    const { e } = engine<null>(
      async () => {
        peak = Math.max(peak, ++running);
        const g = deferred();
        gates.push(g);
        await g.promise;
        running--;
        finished++;
      },
      { concurrency: 5, perInstallation: 2 },
    );
    for (let i = 0; i < 4; i++) await e.enqueue(job(`i${i}`, `r#${i}`, null, 7));
    await until(() => gates.length === 2, "two running");
    expect((await e.stats()).running).toBe(2);
    while (finished < 4) {
      await until(() => gates.length > 0, "a running job");
      const before = finished;
      gates.shift()!.resolve();
      await until(() => finished > before, "progress");
    }
    expect(peak).toBe(2);
  });

  it("ignores a seen id, also after the store is reopened", async () => {
    const first = engine<null>(undefined);
    expect(await first.e.enqueue(job("d1", "r#1", null))).toBe(true);
    expect(await first.e.enqueue(job("d1", "r#1", null))).toBe(false);
    await first.e.shutdown(0);
    const second = engine<null>(undefined);
    expect(await second.e.enqueue(job("d1", "r#1", null))).toBe(false);
    expect(await second.e.enqueue(job("d2", "r#1", null))).toBe(true);
    expect((await second.e.stats()).queued).toBe(2);
  });

  it("retries a crashed job with backoff, then hands it to onAbandoned", async () => {
    const attempts: number[] = [];
    const { e, abandoned } = engine<null>(
      async (j) => {
        attempts.push(j.attempt);
        throw new Error("kaboom");
      },
      { attempts: 3 },
    );
    await e.enqueue(job("c1", "r#1", null));
    await until(() => abandoned.length === 1, "abandoned");
    expect(attempts).toEqual([1, 2, 3]);
    expect(abandoned[0]![1]).toEqual({ kind: "crashed", message: "kaboom" });
    expect(await e.stats()).toMatchObject({ queued: 0, running: 0 });
  });

  it("cancel aborts the running job of the key and drops its queued ones", async () => {
    const reasons: unknown[] = [];
    const { e } = engine<null>(async (_j, signal) => {
      await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
      reasons.push(signal.reason);
    });
    await e.enqueue(job("x1", "r#1", null));
    await e.enqueue(job("x2", "r#1", null));
    await e.enqueue(job("x3", "r#2", null));
    await until(async () => (await e.stats()).running === 2, "two running");
    expect(await e.cancel("r#1")).toEqual({ dropped: 1, aborted: 1 });
    await until(() => reasons.length === 1, "aborted");
    expect(reasons[0]).toMatchObject({ reason: "cancel" });
    expect((await e.stats()).queued).toBe(0);
  });

  it("a schedule enqueues one job per tick even with two engines on one store", async () => {
    const seen: string[] = [];
    const handler: JobHandler<null> = async (j) => void seen.push(j.id);
    const a = engine<null>(handler);
    const b = engine<null>(handler);
    await a.e.upsertSchedule("nightly", "* * * * * *", { key: "r#9", installationId: 1, kind: "schedule", data: null });
    await b.e.upsertSchedule("nightly", "* * * * * *", { key: "r#9", installationId: 1, kind: "schedule", data: null });
    await until(() => seen.length >= 3, "three ticks");
    await a.e.removeSchedule("nightly");
    await b.e.removeSchedule("nightly");
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of seen) expect(id).toMatch(/^schedule:nightly:\d+000$/);
  });
});

describe("embedded job engine across process restarts", () => {
  const start = (config: Record<string, unknown>) => {
    const p = spawnScript("test/fixtures/jobs/engine-worker.ts", [
      "embedded",
      JSON.stringify({ path: join(dir, "db"), ...fast, ...config }),
    ]);
    procs.push(p);
    return p;
  };

  it("kill -9 mid-job, restart: the job runs again and completes", async () => {
    const release = join(dir, "release");
    const w1 = start({});
    await w1.waitFor((e) => e.ev === "ready");
    w1.send({ cmd: "enqueue", job: job("k1", "r#1", { holdUntil: release }) });
    await w1.waitFor((e) => e.ev === "start" && e.id === "k1");
    w1.child.kill("SIGKILL");
    await w1.exited;
    writeFileSync(release, "");
    const w2 = start({});
    const end = await w2.waitFor((e) => e.ev === "end" && e.id === "k1");
    expect(end.pid).toBe(w2.child.pid);
    expect(w2.events.find((e) => e.ev === "start" && e.id === "k1")).toMatchObject({ attempt: 2 });
    expect(w2.events.filter((e) => e.ev === "abandoned")).toEqual([]);
  });

  it("kill -9 mid-job on its last attempt, restart: the job is reported abandoned once", async () => {
    const w1 = start({ attempts: 1 });
    await w1.waitFor((e) => e.ev === "ready");
    w1.send({ cmd: "enqueue", job: job("k2", "r#1", { holdUntil: join(dir, "never") }) });
    await w1.waitFor((e) => e.ev === "start" && e.id === "k2");
    w1.child.kill("SIGKILL");
    await w1.exited;
    const w2 = start({ attempts: 1 });
    await w2.waitFor((e) => e.ev === "abandoned" && e.id === "k2");
    w2.send({ cmd: "stats" });
    await w2.waitFor((e) => e.ev === "stats");
    expect(w2.events.filter((e) => e.ev === "abandoned")).toEqual([
      { ev: "abandoned", id: "k2", reason: "worker-lost", pid: w2.child.pid },
    ]);
    expect(w2.events.find((e) => e.ev === "stats")).toMatchObject({ queued: 0, running: 0 });
    expect(w2.events.filter((e) => e.ev === "start")).toEqual([]);
  });

  it("SIGTERM: the running job is cut off and kept, queued ones are kept and reported; a restart runs them", async () => {
    const release = join(dir, "release");
    const w1 = start({ concurrency: 1, graceMs: 100 });
    await w1.waitFor((e) => e.ev === "ready");
    w1.send({ cmd: "enqueue", job: job("t1", "r#1", { holdUntil: release }) });
    w1.send({ cmd: "enqueue", job: job("t2", "r#2", {}) });
    await w1.waitFor((e) => e.ev === "start" && e.id === "t1");
    await w1.waitFor((e) => e.ev === "enqueued" && e.id === "t2");
    w1.child.kill("SIGTERM");
    const report = await w1.waitFor((e) => e.ev === "shutdown");
    expect(report).toEqual({ ev: "shutdown", requeued: ["t1"], waiting: ["t2"] });
    expect(w1.events).toContainEqual(expect.objectContaining({ ev: "stopped", id: "t1", reason: "shutdown" }));
    await w1.exited;
    writeFileSync(release, "");
    const w2 = start({});
    await w2.waitFor((e) => e.ev === "end" && e.id === "t1");
    await w2.waitFor((e) => e.ev === "end" && e.id === "t2");
    expect(w2.events.find((e) => e.ev === "start" && e.id === "t1")).toMatchObject({ attempt: 1 });
  });

  it("cancel from another process sharing the store reaches the running job and drops the queued one", async () => {
    const w1 = start({});
    await w1.waitFor((e) => e.ev === "ready");
    w1.send({ cmd: "enqueue", job: job("x1", "r#1", { holdUntil: join(dir, "never") }) });
    w1.send({ cmd: "enqueue", job: job("x2", "r#1", {}) });
    await w1.waitFor((e) => e.ev === "start" && e.id === "x1");
    await w1.waitFor((e) => e.ev === "enqueued" && e.id === "x2");
    const { e } = engine<unknown>(undefined);
    expect(await e.cancel("r#1")).toEqual({ dropped: 1, aborted: 1 });
    await w1.waitFor((ev) => ev.ev === "stopped" && ev.id === "x1");
    expect(w1.events.find((ev) => ev.ev === "stopped")).toMatchObject({ reason: "cancel" });
    await until(async () => (await e.stats()).running === 0, "the cancelled job ended");
    expect(w1.events.filter((ev) => ev.ev === "start").map((ev) => ev.id)).toEqual(["x1"]);
  });
});

describe("embedded store: one LMDB handle per file in a process", () => {
  it("a second store opened on the file while the first one's transaction holds the write lock shares its handle instead of hanging the process", async () => {
    const p = spawnScript("test/fixtures/jobs/two-stores.ts", [join(dir, "db")]);
    procs.push(p);
    const done = await p.waitFor((e) => e.ev === "done", WAIT_MS);
    expect(done).toMatchObject({ seen: { first: ["a", "b"], second: ["a", "b"] }, after: ["a", "b"] });
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });
});

describe("embedded engine: stored layout", () => {
  it("keeps a job's data out of its record (claims read records only), and still runs a job stored whole by an older version", async () => {
    const { open } = await import("lmdb");
    const raw = open<unknown, (string | number)[]>({ path: join(dir, "db"), compression: false });
    // A job as the previous layout stored it: the data inside the record.
    await raw.transactionSync(() => {
      raw.putSync(["seq"], 1);
      raw.putSync(["seen", "old-1"], Date.now());
      raw.putSync(["j", 1], {
        id: "old-1",
        key: "o/r#1",
        installationId: 1,
        kind: "run",
        data: { n: "old" },
        attempt: 0,
        seq: 1,
        state: "queued",
        notBefore: 0,
      });
    });
    await raw.close();
    const ran: unknown[] = [];
    const gate = deferred();
    const { e } = engine<{ n: string }>(async (job) => {
      ran.push(job.data);
      if (job.data.n === "new") await gate.promise;
    });
    await until(() => ran.length === 1, "the old job to run");
    await e.enqueue({ id: "new-1", key: "o/r#2", installationId: 1, kind: "run", data: { n: "new" } });
    await until(() => ran.length === 2, "the new job to start");
    expect(ran).toEqual([{ n: "old" }, { n: "new" }]);
    // Read-only: a writable handle commits on open, which waits for the write lock the engine's transactions take.
    const peek = open<unknown, (string | number)[]>({ path: join(dir, "db"), compression: false, readOnly: true });
    const records = [...peek.getRange({ start: ["j"], end: ["j", Number.MAX_SAFE_INTEGER] })].map(
      (x) => x.value as Record<string, unknown>,
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: "new-1", state: "running" });
    expect(records[0]).not.toHaveProperty("data");
    expect(peek.get(["d", records[0]!.seq as number])).toEqual({ n: "new" });
    await peek.close();
    gate.resolve();
    await until(async () => (await e.stats()).running === 0, "the new job to end");
  });
});
