import { createInProcessQueue } from "../../src/jobs/in-process-queue.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("in-process queue", () => {
  it("runs one job at a time per key, in order, and others in parallel up to the limit", async () => {
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const q = createInProcessQueue<string>({
      concurrency: 2,
      handler: async (job) => {
        log.push(`start ${job.data}`);
        const g = deferred();
        gates.set(job.data, g);
        await g.promise;
        log.push(`end ${job.data}`);
      },
    });
    q.enqueue({ id: "1", key: "r#1", data: "a1" });
    q.enqueue({ id: "2", key: "r#1", data: "a2" });
    q.enqueue({ id: "3", key: "r#2", data: "b1" });
    q.enqueue({ id: "4", key: "r#3", data: "c1" });
    await Promise.resolve();
    expect(log).toEqual(["start a1", "start b1"]);
    expect(q.stats()).toEqual({ running: 2, queued: 2 });
    gates.get("a1")!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["start a1", "start b1", "end a1", "start a2"]);
    gates.get("b1")!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(log.at(-1)).toBe("start c1");
    gates.get("a2")!.resolve();
    gates.get("c1")!.resolve();
    await q.idle();
  });

  it("ignores a redelivered id", async () => {
    const seen: string[] = [];
    const q = createInProcessQueue<string>({ concurrency: 1, handler: async (j) => void seen.push(j.id) });
    expect(q.enqueue({ id: "d1", key: "k", data: "" })).toBe(true);
    expect(q.enqueue({ id: "d1", key: "k", data: "" })).toBe(false);
    await q.idle();
    expect(seen).toEqual(["d1"]);
  });

  it("cancels the running job for a key and drops its queued ones", async () => {
    const aborted: string[] = [];
    const ran: string[] = [];
    const q = createInProcessQueue<string>({
      concurrency: 1,
      handler: (job, signal) =>
        new Promise<void>((resolve) => {
          ran.push(job.id);
          signal.addEventListener("abort", () => {
            aborted.push(job.id);
            resolve();
          });
        }),
    });
    q.enqueue({ id: "1", key: "k", data: "" });
    q.enqueue({ id: "2", key: "k", data: "" });
    expect(q.cancel("k")).toBe(2);
    await q.idle();
    expect(ran).toEqual(["1"]);
    expect(aborted).toEqual(["1"]);
  });

  it("shuts down gracefully and reports jobs it had to cut off", async () => {
    const q = createInProcessQueue<string>({
      concurrency: 2,
      handler: (job, signal) => new Promise<void>((resolve) => (job.id === "fast" ? resolve() : signal.addEventListener("abort", () => resolve()))),
    });
    q.enqueue({ id: "fast", key: "a", data: "" });
    q.enqueue({ id: "slow", key: "b", data: "" });
    const cut = await q.shutdown(50);
    expect(cut.map((j) => j.id)).toEqual(["slow"]);
    expect(q.enqueue({ id: "late", key: "c", data: "" })).toBe(false);
  });
});
