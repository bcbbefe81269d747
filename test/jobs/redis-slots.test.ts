import { Redis } from "ioredis";
import { createInstallationSlots } from "../../src/jobs/redis-slots.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "./redis-server.js";

/** The per-installation semaphore's Lua script and wake-ups, against a real redis-server (no BullMQ queue needed). */
describeWith("redis", "installation slots (real redis-server)", () => {
  let server: { url: string; stop: () => Promise<void> };
  let redis: Redis;
  let n = 0;
  let prefix: string;
  const promoted: string[] = [];
  const jobs = new Map<string, { promote(): Promise<void> }>();

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  beforeEach(() => {
    prefix = `slots${++n}`;
    promoted.length = 0;
    jobs.clear();
  });

  const slots = (limit: number, leaseMs = 60_000) =>
    createInstallationSlots({
      redis,
      queue: { getJob: async (id) => jobs.get(id) },
      key: (...parts) => [prefix, ...parts].join(":"),
      limit,
      leaseMs,
      retryMs: 60_000,
      report: (error) => {
        throw error;
      },
    });

  it("gives at most `limit` slots per installation, renews a held one, and counts installations apart", async () => {
    const s = slots(2);
    expect(await s.take(1, "a")).toBe(true);
    expect(await s.take(1, "b")).toBe(true);
    expect(await s.take(1, "c")).toBe(false);
    // A job that holds a slot renews it, even with every slot taken.
    expect(await s.take(1, "a")).toBe(true);
    expect(await s.take(2, "c")).toBe(true);
    await s.free(1, "a");
    expect(await s.take(1, "c")).toBe(true);
  });

  it("frees the slot of a job whose lease ran out (its worker died) for the next taker", async () => {
    // The dead worker's lease is 1 ms; the next taker's is long. Polled, not slept: the first look after 1 ms succeeds.
    expect(await slots(1, 1).take(7, "dead")).toBe(true);
    const live = slots(1);
    const deadline = Date.now() + 5_000;
    let taken = false;
    while (!taken && Date.now() < deadline) taken = await live.take(7, "next");
    expect(taken).toBe(true);
    expect(await redis.zrange(`${prefix}:inst:7`, "0", "-1")).toEqual(["next"]);
  });

  it("a freed slot wakes the oldest waiter still in the delayed set, skipping ones that are gone", async () => {
    const s = slots(1);
    expect(await s.take(3, "holder")).toBe(true);
    // Waiters by the time their job was queued: "gone" (cancelled since), then "w1", then "w2".
    await redis.zadd(`${prefix}:inst-wait:3`, 1, "gone", 2, "w1", 3, "w2");
    for (const id of ["w1", "w2"]) jobs.set(id, { promote: async () => void promoted.push(id) });
    await s.free(3, "holder");
    expect(promoted).toEqual(["w1"]);
    expect(await redis.zrange(`${prefix}:inst-wait:3`, "0", "-1")).toEqual(["w1", "w2"]);
    // Taking the slot takes the job off the waiters.
    expect(await s.take(3, "w1")).toBe(true);
    expect(await redis.zrange(`${prefix}:inst-wait:3`, "0", "-1")).toEqual(["w2"]);
  });

  it("a waiter whose promote fails (it is running, not delayed) is passed over for the next one", async () => {
    const s = slots(1);
    await s.take(4, "holder");
    await redis.zadd(`${prefix}:inst-wait:4`, 1, "busy", 2, "w");
    jobs.set("busy", { promote: async () => Promise.reject(new Error("job is not in the delayed state")) });
    jobs.set("w", { promote: async () => void promoted.push("w") });
    await s.free(4, "holder");
    expect(promoted).toEqual(["w"]);
    expect(await redis.zrange(`${prefix}:inst-wait:4`, "0", "-1")).toEqual(["busy", "w"]);
  });
});
