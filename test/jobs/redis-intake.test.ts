import { Redis } from "ioredis";
import { createRedisEngine } from "../../src/jobs/redis-engine.js";
import { PENDING_STALE_MS } from "../../src/jobs/redis-intake.js";
import type { JobEngine, JobInput } from "../../src/jobs/job-engine.js";
import type { RedisEngineOptions } from "../../src/jobs/redis-engine.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "./redis-server.js";
import { waitUntil } from "../helpers/wait-until.js";

const job = (id: string, key: string, data: unknown = {}): JobInput<unknown> => ({
  id,
  key,
  installationId: 1,
  kind: "triage",
  data,
});
const bullId = (id: string) => `j${Buffer.from(id).toString("base64url")}`;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Poll for `condition` (the suite's one polling helper); a timeout says what was awaited and, with `seen`, what was seen. */
const until = (condition: () => boolean | Promise<boolean>, what: string, seen?: () => string) =>
  waitUntil(condition, () => `waiting for ${what}${seen ? `\n${seen()}` : ""}`);

/**
 * The Redis engine's enqueue as a webhook receiver uses it: many deliveries in one turn of the event loop, recorded
 * in one script (dedupe mark, key list, outbox) and answered; queued in BullMQ afterwards. Each caller must still get
 * its own answer, and nothing recorded may be lost.
 */
describeWith("redis", "redis intake (batched enqueue, real redis-server)", () => {
  let server: { url: string; stop: () => Promise<void> };
  let raw: Redis;
  let prefix: string;
  let n = 0;
  const engines: JobEngine<unknown>[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.stop();
  });
  beforeEach(() => {
    prefix = `i${++n}`;
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.shutdown(0);
  });

  const receiver = (options: Partial<RedisEngineOptions<unknown>> = {}) => {
    const e = createRedisEngine<unknown>({ redisUrl: server.url, prefix, ...options });
    engines.push(e);
    return e;
  };
  const inOutbox = async (id: string) => (await raw.hexists(`${prefix}:x:outbox`, bullId(id))) === 1;
  const seen = (id: string) => raw.get(`${prefix}:x:seen:${id}`);
  const listed = (key: string) => raw.lrange(`${prefix}:x:key:${key}`, 0, -1);
  const queued = async (id: string) => (await raw.exists(`${prefix}:jobs:${bullId(id)}`)) === 1;

  it("accepts each id once among many enqueues in one turn, duplicates within the turn and across turns included", async () => {
    const r = receiver();
    const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
    // One turn: every id, then again the first ten (a redelivery racing its original).
    const first = Promise.all([...ids, ...ids.slice(0, 10)].map((id, i) => r.enqueue(job(id, `o/r#${i % 7}`))));
    await nextTurn();
    // The next turn, while the first batch may still be in flight: ten of the same ids again, and ten new ones.
    const again = [...ids.slice(20, 30), ...Array.from({ length: 10 }, (_, i) => `e${i}`)];
    const second = Promise.all(again.map((id, i) => r.enqueue(job(id, `o/r#${i % 7}`))));
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual([...ids.map(() => true), ...ids.slice(0, 10).map(() => false)]);
    expect(b).toEqual([...ids.slice(20, 30).map(() => false), ...Array.from({ length: 10 }, () => true)]);
    // Every accepted id is marked seen (a plain time), then queued once and cleared from the outbox.
    const accepted = [...ids, ...again.slice(10)];
    for (const id of accepted) expect(await seen(id)).toMatch(/^\d+$/);
    await until(
      async () => (await Promise.all(accepted.map(queued))).every(Boolean),
      "every accepted job to be queued",
    );
    await until(async () => (await raw.hlen(`${prefix}:x:outbox`)) === 0, "the outbox to be emptied");
    expect((await r.stats()).queued).toBe(50);
    // A later turn (a redelivery after a restart would be the same): all duplicates.
    expect(await Promise.all(ids.slice(0, 5).map((id) => r.enqueue(job(id, "o/r#0"))))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("records a turn's ids in one script: the answers wait on nothing else", async () => {
    const r = receiver();
    await r.enqueue(job("warm", "o/r#0")); // scripts loaded, connections up
    const monitor = await raw.monitor(); // a connection of its own
    const seenCommands: string[][] = [];
    const marker = `${prefix}:end-of-batch`;
    let sawMarker = false;
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (source === "lua") return; // a script's own calls: the script itself is counted
      if (args.includes(marker)) sawMarker = true;
      else if (args.some((a) => a.startsWith(`${prefix}:x:seen:`))) seenCommands.push(args);
    });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
      expect(await Promise.all(ids.map((id) => r.enqueue(job(id, "o/r#1"))))).toEqual(ids.map(() => true));
      // Redis reports commands in the order it runs them: once this one is seen, every command of the batch was.
      await raw.get(marker);
      while (!sawMarker) await new Promise((resolve) => setImmediate(resolve));
      // One script touched the dedupe marks, over all 20 ids (per enqueue, these had been 20 scripts and 20 SETs).
      expect(
        seenCommands.map((c) => [c[0]!.toLowerCase(), c.filter((a) => a.startsWith(`${prefix}:x:seen:`)).length]),
      ).toEqual([["eval", 20]]);
      for (const id of ids) expect(await seen(id)).toMatch(/^\d+$/);
    } finally {
      monitor.disconnect();
    }
  });

  it("keeps each key's order across one turn's batch and the next", async () => {
    const r = receiver();
    const order = ["a0", "b0", "a1", "b1", "a2", "a1", "b2"];
    await Promise.all(order.map((id) => r.enqueue(job(id, `o/r#${id[0]}`))));
    await Promise.all(["b3", "a3"].map((id) => r.enqueue(job(id, `o/r#${id[0]}`))));
    expect(await listed("o/r#a")).toEqual(["a0", "a1", "a2", "a3"].map(bullId));
    expect(await listed("o/r#b")).toEqual(["b0", "b1", "b2", "b3"].map(bullId));
  });

  it("answers before queueing: recorded jobs wait in the outbox while the intake is busy, then go into BullMQ", async () => {
    let quiet!: () => void;
    const busy = new Promise<void>((resolve) => (quiet = resolve));
    const r = receiver({ quiet: () => busy });
    expect(await Promise.all(["q1", "q2", "q1"].map((id) => r.enqueue(job(id, "o/r#1"))))).toEqual([true, true, false]);
    for (const id of ["q1", "q2"]) {
      expect(await inOutbox(id)).toBe(true);
      expect(await queued(id)).toBe(false);
    }
    expect((await r.stats()).queued).toBe(2); // recorded jobs count as queued
    quiet();
    await until(
      async () => (await queued("q1")) && (await queued("q2")),
      "the recorded jobs to be queued once the intake is quiet",
    );
    await until(async () => !(await inOutbox("q1")) && !(await inOutbox("q2")), "their outbox records to be cleared");
    expect((await r.stats()).queued).toBe(2);
  });

  it("shutting down queues what it recorded before closing", async () => {
    let quiet!: () => void;
    const busy = new Promise<void>((resolve) => (quiet = resolve));
    const r = createRedisEngine<unknown>({ redisUrl: server.url, prefix, quiet: () => busy });
    expect(await r.enqueue(job("s1", "o/r#1"))).toBe(true);
    // The move waits on the intake: the shutdown begins before it can start, and must wait for it.
    const closing = r.shutdown(0);
    let closed = false;
    void closing.then(() => (closed = true));
    // The shutdown has begun (new work is refused) and waits: the record is still in the outbox.
    expect(await r.enqueue(job("s2", "o/r#2"))).toBe(false);
    expect(await inOutbox("s1")).toBe(true);
    expect(closed).toBe(false);
    quiet();
    await closing;
    expect(await queued("s1")).toBe(true);
    expect(await inOutbox("s1")).toBe(false);
  });

  it("takes a stale pending mark of an earlier version over within a batch, beside fresh ids and a live one", async () => {
    const r = receiver();
    // A receiver (of the version that marked ids pending before queueing them) died after marking `died` and
    // listing it first on its key; `busy` is being enqueued by a live one.
    await raw.set(`${prefix}:x:seen:died`, `p:${Date.now() - PENDING_STALE_MS - 1_000}`, "PX", 60_000);
    await raw.rpush(`${prefix}:x:key:o/r#1`, bullId("died"));
    await raw.set(`${prefix}:x:seen:busy`, `p:${Date.now()}`, "PX", 60_000);
    const results = await Promise.all(
      [job("before", "o/r#1"), job("died", "o/r#1"), job("busy", "o/r#2"), job("after", "o/r#1")].map((j) =>
        r.enqueue(j),
      ),
    );
    expect(results).toEqual([true, true, false, true]);
    // The taken-over entry moved behind the one enqueued before it in this batch, listed once.
    expect(await listed("o/r#1")).toEqual(["before", "died", "after"].map(bullId));
    await until(() => queued("died"), "the taken-over job to be queued");
    expect(await seen("busy")).toMatch(/^p:/);
  });

  it("a failed add keeps its jobs in the outbox, reported, until a sweep queues them; their redeliveries stay duplicates", async () => {
    const errors: unknown[] = [];
    const r = receiver({ onError: (e) => errors.push(e), sweepMs: 50, outboxStaleMs: 100 });
    expect(await Promise.all(["ok1", "ok2"].map((id) => r.enqueue(job(id, "o/r#1"))))).toEqual([true, true]);
    await until(async () => (await queued("ok1")) && (await queued("ok2")), "the first batch to be queued");
    // BullMQ's add increments the queue's job counter first: a counter that is not a number fails every add.
    await raw.set(`${prefix}:jobs:id`, "not a number");
    // The deliveries are recorded: GitHub gets its 2xx, nothing is lost.
    expect(await Promise.all(["f1", "f2", "f3"].map((id) => r.enqueue(job(id, "o/r#1"))))).toEqual([true, true, true]);
    await until(async () => errors.length > 0, "the failed add to be reported");
    for (const id of ["f1", "f2", "f3"]) {
      expect(await queued(id)).toBe(false);
      expect(await inOutbox(id)).toBe(true);
      expect(await r.enqueue(job(id, "o/r#1"))).toBe(false); // a redelivery meanwhile is a duplicate
    }
    expect(await listed("o/r#1")).toEqual(["ok1", "ok2", "f1", "f2", "f3"].map(bullId));
    // Redis is fixed: the next sweep queues them, each once.
    await raw.del(`${prefix}:jobs:id`);
    await until(
      async () => (await Promise.all(["f1", "f2", "f3"].map(queued))).every(Boolean),
      "the sweep to queue the recorded jobs",
    );
    await until(async () => (await raw.hlen(`${prefix}:x:outbox`)) === 0, "the outbox to be emptied");
  });

  it("a sweep drops an outbox record that is not JSON, and says so; the valid records beside it are queued", async () => {
    const old = Date.now() - 60_000;
    await raw.hset(
      `${prefix}:x:outbox`,
      bullId("broken"),
      "{not json",
      bullId("fine"),
      JSON.stringify(job("fine", "o/r#1")),
    );
    await raw.zadd(`${prefix}:x:outbox-at`, old, bullId("broken"), old, bullId("fine"));
    const errors: unknown[] = [];
    receiver({ onError: (e) => errors.push(e), sweepMs: 50, outboxStaleMs: 100 });
    await until(() => queued("fine"), "the valid record to be queued");
    await until(
      async () => (await raw.hlen(`${prefix}:x:outbox`)) === 0 && (await raw.zcard(`${prefix}:x:outbox-at`)) === 0,
      "both records to be cleared",
    );
    expect(errors.map(String)).toEqual([
      expect.stringContaining(`the outbox record ${bullId("broken")} is not valid JSON`),
    ]);
    expect(await queued("broken")).toBe(false);
  });

  it("a job that cannot be added fails alone: the rest of its batch is queued", async () => {
    const r = receiver();
    // Job data is stored as JSON: a BigInt cannot be, so this one job's add throws (and with it the batch's bulk add).
    const outcomes = await Promise.allSettled(
      [job("g1", "o/r#1"), job("bad", "o/r#1", { n: 1n }), job("g2", "o/r#1")].map((j) => r.enqueue(j)),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(
      outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<boolean>).value),
    ).toEqual([true, true]);
    expect(await seen("bad")).toBeNull();
    expect(await inOutbox("bad")).toBe(false);
    for (const id of ["g1", "g2"]) {
      expect(await seen(id)).toMatch(/^\d+$/);
      await until(() => queued(id), `${id} to be queued`);
    }
    expect(await queued("bad")).toBe(false);
    // Its redelivery (fixed) is taken.
    expect(await r.enqueue(job("bad", "o/r#1", { n: 1 }))).toBe(true);
  });
});
