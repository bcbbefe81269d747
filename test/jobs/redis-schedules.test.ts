import { Redis } from "ioredis";
import { createRedisSchedules } from "../../src/jobs/redis-schedules.js";
import { describeWith } from "../helpers/needs.js";
import { waitUntil } from "../helpers/wait-until.js";
import { startRedisServer } from "./redis-server.js";

/**
 * Schedules armed once for the cluster, against a real redis-server: the queue is a recording stand-in for BullMQ's
 * job-scheduler calls (BullMQ's own scheduling is exercised by redis-engine.test.ts), so each test can say exactly
 * when a replica re-arms a schedule and when it leaves it alone.
 */
describeWith("redis", "redis schedules (real redis-server)", () => {
  let server: { url: string; stop: () => Promise<void> };
  let redis: Redis;
  let n = 0;
  let prefix: string;
  let calls: string[];
  /** The scheduler's next tick, and the tick jobs that exist, as BullMQ would report them. */
  let next: number | undefined;
  let tickJobs: Set<string>;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  beforeEach(() => {
    prefix = `sched${++n}`;
    calls = [];
    next = undefined;
    tickJobs = new Set();
  });

  const key = (...parts: (string | number)[]) => [prefix, ...parts].join(":");
  const schedules = () =>
    createRedisSchedules<{ n: number }>({
      redis,
      key,
      tickName: "tick",
      report: (error) => {
        throw error;
      },
      queue: {
        getJobScheduler: async () => (next === undefined ? undefined : { next }),
        getJob: async (id) => (tickJobs.has(id) ? {} : undefined),
        upsertJobScheduler: async (id, repeat, template) => {
          calls.push(`upsert ${id} ${repeat.pattern} ${repeat.tz} ${template.name} ${JSON.stringify(template.data)}`);
          next = 1000;
          tickJobs.add(`repeat:${id}:1000`);
        },
        removeJobScheduler: async (id) => void calls.push(`remove ${id}`),
      },
    });

  it("arms a schedule once: a replica arming it unchanged leaves its next tick alone", async () => {
    await schedules().upsert("s1", "0 * * * *", { n: 1 });
    await schedules().upsert("s1", "0 * * * *", { n: 1 });
    expect(calls).toEqual(['upsert s1 0 * * * * UTC tick {"n":1}']);
    expect(await redis.get(key("schedule", "s1"))).toBe(JSON.stringify({ cron: "0 * * * *", data: { n: 1 } }));
  });

  it("re-arms a schedule whose pattern, data or zone changed", async () => {
    const s = schedules();
    await s.upsert("s2", "0 * * * *", { n: 1 });
    await s.upsert("s2", "5 * * * *", { n: 1 });
    await s.upsert("s2", "5 * * * *", { n: 2 });
    await s.upsert("s2", "5 * * * *", { n: 2 }, "Europe/Paris");
    expect(calls).toEqual([
      'upsert s2 0 * * * * UTC tick {"n":1}',
      'upsert s2 5 * * * * UTC tick {"n":1}',
      'upsert s2 5 * * * * UTC tick {"n":2}',
      'upsert s2 5 * * * * Europe/Paris tick {"n":2}',
    ]);
  });

  it("re-arms an unchanged schedule that stalled (its next tick's job is gone)", async () => {
    const s = schedules();
    await s.upsert("s3", "0 * * * *", { n: 1 });
    tickJobs.clear();
    await s.upsert("s3", "0 * * * *", { n: 1 });
    expect(calls).toHaveLength(2);
  });

  it("removes the scheduler and what was stored of it, so arming it again arms it", async () => {
    const s = schedules();
    await s.upsert("s4", "0 * * * *", { n: 1 });
    await s.remove("s4");
    expect(await redis.get(key("schedule", "s4"))).toBeNull();
    await s.upsert("s4", "0 * * * *", { n: 1 });
    expect(calls).toEqual([
      'upsert s4 0 * * * * UTC tick {"n":1}',
      "remove s4",
      'upsert s4 0 * * * * UTC tick {"n":1}',
    ]);
  });

  it("waits for another replica's lock on the schedule, then arms it", async () => {
    await redis.set(key("schedule-lock", "s5"), "another-replica", "PX", 10_000);
    /** SET commands the server has run: the waiting replica's tries at the lock (nothing else sets meanwhile). */
    const sets = async () => Number(/cmdstat_set:calls=(\d+)/.exec(await redis.info("commandstats"))?.[1] ?? 0);
    const before = await sets();
    let done = false;
    const arming = schedules()
      .upsert("s5", "0 * * * *", { n: 1 })
      .then(() => (done = true));
    await waitUntil(async () => (await sets()) >= before + 3, "the arming replica to try the lock again");
    expect(done).toBe(false);
    expect(calls).toEqual([]);
    await redis.del(key("schedule-lock", "s5"));
    await arming;
    expect(calls).toHaveLength(1);
    // Its own lock is released after arming.
    expect(await redis.get(key("schedule-lock", "s5"))).toBeNull();
  });
});
