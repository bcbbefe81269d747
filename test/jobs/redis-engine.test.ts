import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createRedisEngine } from "../../src/jobs/redis-engine.js";
import type { JobEngine } from "../../src/jobs/job-engine.js";
import { WAIT_MS } from "../helpers/timeouts.js";
import { spawnScript, type ScriptProcess } from "../helpers/spawn-script.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer, watchCommands } from "./redis-server.js";
import { waitUntil } from "../helpers/wait-until.js";

/** Poll for `condition` (the suite's one polling helper); a timeout says what was awaited and, with `seen`, what was seen. */
const until = (condition: () => boolean | Promise<boolean>, what: string, seen?: () => string) =>
  waitUntil(condition, () => `waiting for ${what}${seen ? `\n${seen()}` : ""}`);

const fast = { leaseMs: 1000, backoffMs: 50, busyRetryMs: 50 };
const job = <T>(id: string, key: string, data: T, installationId = 1) => ({
  id,
  key,
  installationId,
  kind: "run" as const,
  data,
});

describeWith("redis", "redis job engine (real redis-server, two worker processes)", () => {
  let redis: { url: string; stop: () => Promise<void> };
  let dir: string;
  let prefix: string;
  let n = 0;
  const procs: ScriptProcess[] = [];
  const engines: JobEngine<unknown>[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "redis-engine-"));
    prefix = `t${++n}`;
  });
  afterEach(async () => {
    for (const p of procs.splice(0))
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    for (const e of engines.splice(0)) await e.shutdown(0);
    rmSync(dir, { recursive: true, force: true });
  });

  const worker = async (config: Record<string, unknown> = {}) => {
    const p = spawnScript("test/fixtures/jobs/engine-worker.ts", [
      "redis",
      JSON.stringify({ redisUrl: redis.url, prefix, logFile: join(dir, "log"), ...fast, ...config }),
    ]);
    procs.push(p);
    await p.waitFor((e) => e.ev === "ready");
    return p;
  };
  /** The test process plays the webhook receiver: it enqueues and cancels, and runs no jobs. */
  const receiver = () => {
    const e = createRedisEngine<unknown>({ redisUrl: redis.url, prefix, ...fast });
    engines.push(e);
    return e;
  };
  /** Records not yet moved into BullMQ (see redis-intake). */
  const outboxSize = async () => {
    const raw = new Redis(redis.url);
    try {
      return await raw.hlen(`${prefix}:x:outbox`);
    } finally {
      raw.disconnect();
    }
  };
  const log = () => (existsSync(join(dir, "log")) ? readFileSync(join(dir, "log"), "utf8").trim().split("\n") : []);

  it("holds per-key order and one job at a time per key across two workers", async () => {
    const [w1, w2] = [
      await worker({ concurrency: 3, perInstallation: 10 }),
      await worker({ concurrency: 3, perInstallation: 10 }),
    ];
    const r = receiver();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      for (const key of ["a", "b"]) {
        ids.push(`${key}${i}`);
        expect(await r.enqueue(job(`${key}${i}`, `o/r#${key}`, { workMs: 30 }))).toBe(true);
      }
    }
    await until(() => log().filter((l) => l.startsWith("end")).length === 12, "12 jobs done");
    for (const key of ["a", "b"]) {
      const lines = log().filter((l) => l.split(" ")[1]!.startsWith(key));
      expect(lines).toEqual([0, 1, 2, 3, 4, 5].flatMap((i) => [`start ${key}${i}`, `end ${key}${i}`]));
    }
    const pids = new Set([...w1.events, ...w2.events].filter((e) => e.ev === "end").map((e) => e.pid));
    expect(pids.size).toBe(2); // both workers took part
    // The last job's "end" is logged by its handler just before BullMQ marks it completed: wait for the queue to settle.
    await until(async () => (await r.stats()).running === 0, "the last job marked completed");
    expect(await r.stats()).toMatchObject({ queued: 0, running: 0, workers: 2 });
  });

  it("holds per-key order for jobs enqueued in one turn (one batch), a duplicate among them run once", async () => {
    await worker({ concurrency: 3, perInstallation: 10 });
    await worker({ concurrency: 3, perInstallation: 10 });
    const r = receiver();
    const order = [0, 1, 2, 3].flatMap((i) => ["a", "b"].map((key) => `${key}${i}`));
    const added = await Promise.all([...order, "a1"].map((id) => r.enqueue(job(id, `o/r#${id[0]}`, { workMs: 20 }))));
    expect(added).toEqual([...order.map(() => true), false]);
    await until(() => log().filter((l) => l.startsWith("end")).length === order.length, `${order.length} jobs done`);
    for (const key of ["a", "b"]) {
      expect(log().filter((l) => l.split(" ")[1]!.startsWith(key))).toEqual(
        [0, 1, 2, 3].flatMap((i) => [`start ${key}${i}`, `end ${key}${i}`]),
      );
    }
  });

  // A retry delay far past the test's wait: the second job can only run if the end of the first wakes it.
  it.each([
    {
      name: "the next job of a key starts when the one before it ends",
      config: { concurrency: 2, busyRetryMs: 10 * WAIT_MS },
      // The same key: the second job was taken, found the first one running, and went back to wait its turn.
      second: { key: "o/r#11", installationId: 1 },
      waiting: (raw: Redis) =>
        raw.zscore(`${prefix}:jobs:delayed`, `j${Buffer.from("second").toString("base64url")}`).then((s) => s !== null),
    },
    {
      name: "a job waiting for its installation's slot starts when the slot frees",
      config: { concurrency: 2, perInstallation: 1, busyRetryMs: 10 * WAIT_MS },
      // Another key, the same installation: it waits for the one slot, listed among the installation's waiters.
      second: { key: "o/r#12", installationId: 1 },
      waiting: (raw: Redis) => raw.zcard(`${prefix}:x:inst-wait:1`).then((n) => n === 1),
    },
  ])("$name, not when its retry delay runs out", async ({ config, second, waiting }) => {
    const [w1, w2] = [await worker(config), await worker(config)];
    const r = receiver();
    const raw = new Redis(redis.url);
    try {
      const release = join(dir, "release");
      await r.enqueue(job("first", "o/r#11", { holdUntil: release }));
      await until(() => log().includes("start first"), "the first job running");
      await r.enqueue(job("second", second.key, {}, second.installationId));
      await until(() => waiting(raw), "the second job waiting");
      writeFileSync(release, "");
      await until(
        () => log().includes("end second"),
        "the second job to run once the first ended",
        () => JSON.stringify([w1.events, w2.events]),
      );
      expect(log()).toEqual(["start first", "end first", "start second", "end second"]);
      expect(await raw.zcard(`${prefix}:x:inst-wait:1`)).toBe(0);
    } finally {
      raw.disconnect();
    }
  });

  it("a worker killed with SIGKILL mid-job: the other worker runs it again, exactly once", async () => {
    const [w1, w2] = [await worker(), await worker()];
    const r = receiver();
    const release = join(dir, "release");
    await r.enqueue(job("k1", "o/r#1", { holdUntil: release }));
    await until(() => [w1, w2].some((w) => w.events.some((e) => e.ev === "start")), "a start");
    const [dead, alive] = w1.events.some((e) => e.ev === "start") ? [w1, w2] : [w2, w1];
    dead.child.kill("SIGKILL");
    await dead.exited;
    writeFileSync(release, "");
    await alive.waitFor((e) => e.ev === "end" && e.id === "k1");
    expect(alive.events.find((e) => e.ev === "start" && e.id === "k1")).toMatchObject({ attempt: 2 });
    // Let a further job through the same key to show the key was freed and nothing ran k1 a third time.
    await r.enqueue(job("k2", "o/r#1", {}));
    await alive.waitFor((e) => e.ev === "end" && e.id === "k2");
    expect(log().filter((l) => l === "end k1")).toHaveLength(1);
    expect(alive.events.filter((e) => e.ev === "abandoned")).toEqual([]);
  });

  it("a worker killed mid-job on its last attempt: the job is reported abandoned, exactly once", async () => {
    const [w1, w2, w3] = [await worker({ attempts: 1 }), await worker({ attempts: 1 }), await worker({ attempts: 1 })];
    const r = createRedisEngine<unknown>({ redisUrl: redis.url, prefix, ...fast, attempts: 1 });
    engines.push(r);
    await r.enqueue(job("k3", "o/r#1", { holdUntil: join(dir, "never") }));
    const all = [w1, w2, w3];
    await until(() => all.some((w) => w.events.some((e) => e.ev === "start")), "a start");
    const dead = all.find((w) => w.events.some((e) => e.ev === "start"))!;
    dead.child.kill("SIGKILL");
    await dead.exited;
    const alive = all.filter((w) => w !== dead);
    await until(() => alive.some((w) => w.events.some((e) => e.ev === "abandoned")), "abandoned");
    // The key is free again: a later job of the same key runs, and by then every survivor has seen the failure.
    await r.enqueue(job("k4", "o/r#1", {}));
    await until(() => log().includes("end k4"), "k4 done");
    const reports = alive.flatMap((w) => w.events.filter((e) => e.ev === "abandoned"));
    expect(reports).toEqual([expect.objectContaining({ id: "k3", reason: "worker-lost" })]);
    // Started once, by the worker that was killed (its start event came before the kill; its log line may not have).
    expect(all.flatMap((w) => w.events.filter((e) => e.ev === "start" && e.id === "k3"))).toHaveLength(1);
    expect(log().filter((l) => l === "start k3").length).toBeLessThanOrEqual(1);
  });

  it("cancel from another process aborts the running job and drops the queued one", async () => {
    const [w1, w2] = [await worker(), await worker()];
    const r = receiver();
    await r.enqueue(job("c1", "o/r#5", { holdUntil: join(dir, "never") }));
    await r.enqueue(job("c2", "o/r#5", {}));
    await until(() => log().includes("start c1"), "c1 running");
    expect(await r.cancel("o/r#5")).toEqual({ dropped: 1, aborted: 1 });
    await until(() => [w1, w2].some((w) => w.events.some((e) => e.ev === "stopped" && e.id === "c1")), "c1 stopped");
    expect([...w1.events, ...w2.events].find((e) => e.ev === "stopped")).toMatchObject({ reason: "cancel" });
    await r.enqueue(job("c3", "o/r#5", {}));
    await until(() => log().includes("end c3"), "c3 done");
    expect(log()).not.toContain("start c2");
  });

  it("a schedule upserted by two replicas fires once per tick", async () => {
    const [w1, w2] = [await worker(), await worker()];
    const template = { key: "o/r#9", installationId: 1, kind: "schedule", data: {} };
    w1.send({ cmd: "schedule", id: "nightly", cron: "* * * * * *", template });
    w2.send({ cmd: "schedule", id: "nightly", cron: "* * * * * *", template });
    const seen = () =>
      `log:\n${log().join("\n")}\nworker events: ${JSON.stringify([w1.events, w2.events])}\nstderr: ${w1.stderr()}${w2.stderr()}`;
    await until(() => log().filter((l) => l.startsWith("end schedule:nightly:")).length >= 3, "three ticks", seen);
    await receiver().removeSchedule("nightly");
    const starts = log().filter((l) => l.startsWith("start "));
    expect(new Set(starts).size).toBe(starts.length);
    for (const s of starts) expect(s).toMatch(/^start schedule:nightly:\d+$/);
  });

  it("arming an unchanged schedule again leaves its next tick alone; arming a stalled one (its next tick's job gone) re-arms it", async () => {
    const template = { key: "o/r#10", installationId: 1, kind: "schedule" as const, data: {} };
    const raw = new Redis(redis.url);
    try {
      const next = async () => Number(await raw.zscore(`${prefix}:jobs:repeat`, "yearly"));
      const tickKey = async () => `${prefix}:jobs:repeat:yearly:${await next()}`;
      await receiver().upsertSchedule("yearly", "0 0 1 1 *", template);
      const first = await tickKey();
      const added = await raw.hget(first, "timestamp");
      expect(added).not.toBeNull();
      // Another replica arms the same schedule: nothing moves (a needless upsert would remove and re-add the tick).
      await receiver().upsertSchedule("yearly", "0 0 1 1 *", template);
      expect(await tickKey()).toBe(first);
      expect(await raw.hget(first, "timestamp")).toBe(added);
      // The schedule stalls (its next tick's job is gone): the next replica to arm it puts a tick back.
      await raw.del(first);
      await raw.zrem(`${prefix}:jobs:delayed`, first.slice(`${prefix}:jobs:`.length));
      await receiver().upsertSchedule("yearly", "0 0 1 1 *", template);
      expect(await raw.exists(await tickKey())).toBe(1);
      // A changed schedule is re-armed with its new pattern.
      await receiver().upsertSchedule("yearly", "0 0 1 6 *", template);
      expect(await next()).not.toBe(Number(first.split(":").pop()));
      expect(await raw.hget(`${prefix}:jobs:repeat:yearly`, "pattern")).toBe("0 0 1 6 *");
      // A time zone re-arms it too: midnight on 1 June in Berlin is 22:00 UTC the day before.
      await receiver().upsertSchedule("yearly", "0 0 1 6 *", template, "Europe/Berlin");
      expect(new Date(await next()).toISOString()).toMatch(/-05-31T22:00:00\.000Z$/);
    } finally {
      raw.disconnect();
    }
  });

  it("a receiver that died between recording a delivery and queueing it loses nothing: a worker's sweep queues it, once", async () => {
    // What a receiver killed after its answer and before its move leaves: the id seen, listed on its key, in the outbox.
    const raw = new Redis(redis.url);
    try {
      const bullId = (id: string) => `j${Buffer.from(id).toString("base64url")}`;
      const died = job("died", "o/r#9", { workMs: 1 });
      await raw.set(`${prefix}:x:seen:died`, String(Date.now() - 1_000), "PX", 60_000);
      await raw.rpush(`${prefix}:x:key:o/r#9`, bullId("died"));
      await raw.hset(`${prefix}:x:outbox`, bullId("died"), JSON.stringify(died));
      await raw.zadd(`${prefix}:x:outbox-at`, Date.now() - 1_000, bullId("died"));
      const w = await worker({ sweepMs: 50, outboxStaleMs: 500 });
      await until(
        () => log().includes("end died"),
        "the recorded job to run",
        () => w.events.map((e) => JSON.stringify(e)).join("\n"),
      );
      // GitHub's redelivery is a duplicate: the job was recorded before the receiver answered.
      expect(await receiver().enqueue(died)).toBe(false);
      const sweeps = await watchCommands(
        redis.url,
        (c) => c[0] === "zrangebyscore" && c[1] === `${prefix}:x:outbox-at`,
      );
      await until(() => sweeps.count() >= 3, "three more sweeps of the outbox").finally(sweeps.close);
      expect(log().filter((l) => l === "start died")).toHaveLength(1);
      expect(await raw.hlen(`${prefix}:x:outbox`)).toBe(0);
    } finally {
      raw.disconnect();
    }
  });

  it("a job whose predecessor on its key is still in the outbox waits for it, and runs after it", async () => {
    await worker();
    let quiet!: () => void;
    const busy = new Promise<void>((resolve) => (quiet = resolve));
    // One receiver records `first` but has not queued it yet (its intake is busy); another records and queues `second`.
    const slow = createRedisEngine<unknown>({ redisUrl: redis.url, prefix, ...fast, quiet: () => busy });
    engines.push(slow);
    expect(await slow.enqueue(job("first", "o/r#5", { workMs: 1 }))).toBe(true);
    expect(await receiver().enqueue(job("second", "o/r#5", { workMs: 1 }))).toBe(true);
    const headChecks = await watchCommands(redis.url, (c) => c[0] === "lindex" && c[1] === `${prefix}:x:key:o/r#5`);
    // The worker has looked at `second` (and waited) several times.
    await until(() => headChecks.count() >= 3, "three head checks of the key").finally(headChecks.close);
    expect(log().filter((l) => l.endsWith("#5") || l.includes("first") || l.includes("second"))).toEqual([]);
    quiet();
    await until(() => log().includes("end second"), "both jobs to run");
    expect(log().filter((l) => l.includes("first") || l.includes("second"))).toEqual([
      "start first",
      "end first",
      "start second",
      "end second",
    ]);
  });

  it("deduplicates an id across a restart of the receiver", async () => {
    const first = createRedisEngine<unknown>({ redisUrl: redis.url, prefix, ...fast });
    expect(await first.enqueue(job("d1", "o/r#1", {}))).toBe(true);
    expect(await first.enqueue(job("d1", "o/r#1", {}))).toBe(false);
    await first.shutdown(0);
    const second = receiver();
    expect(await second.enqueue(job("d1", "o/r#1", {}))).toBe(false);
    expect(await second.enqueue(job("d2", "o/r#1", {}))).toBe(true);
    // Counted once moved (while it moves it may be counted both as recorded and as queued).
    await until(async () => (await outboxSize()) === 0, "d2 to be queued");
    expect((await second.stats()).queued).toBe(2);
  });
});
