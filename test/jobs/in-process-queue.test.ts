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

  it("never runs more than the global limit at once, with many keys", async () => {
    let now = 0;
    let peak = 0;
    const q = createInProcessQueue<number>({
      concurrency: 3,
      handler: async () => {
        now++;
        peak = Math.max(peak, now);
        await new Promise((r) => setImmediate(r));
        now--;
      },
    });
    for (let i = 0; i < 20; i++) q.enqueue({ id: `d${i}`, key: `r#${i % 7}`, data: i });
    await q.idle();
    expect(peak).toBe(3);
  });

  it("keeps FIFO order within a key even when other keys interleave", async () => {
    const order: string[] = [];
    const q = createInProcessQueue<string>({ concurrency: 4, handler: async (j) => void order.push(j.data) });
    ["a1", "b1", "a2", "b2", "a3"].forEach((d, i) => q.enqueue({ id: String(i), key: d[0]!, data: d }));
    await q.idle();
    expect(order.filter((d) => d.startsWith("a"))).toEqual(["a1", "a2", "a3"]);
    expect(order.filter((d) => d.startsWith("b"))).toEqual(["b1", "b2"]);
  });

  it("cancel leaves other keys alone and reports 0 when there is nothing to cancel", async () => {
    const gate = deferred();
    const ran: string[] = [];
    const q = createInProcessQueue<string>({ concurrency: 1, handler: async (j) => (ran.push(j.id), j.key === "a" ? gate.promise : undefined) });
    q.enqueue({ id: "a1", key: "a", data: "" });
    q.enqueue({ id: "b1", key: "b", data: "" });
    expect(q.cancel("zzz")).toBe(0);
    expect(q.cancel("b")).toBe(1);
    gate.resolve();
    await q.idle();
    expect(ran).toEqual(["a1"]);
  });

  it("passes an abort reason that says cancelled", async () => {
    let reason: unknown;
    const q = createInProcessQueue<string>({
      concurrency: 1,
      handler: (_j, signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => ((reason = signal.reason), resolve()))),
    });
    q.enqueue({ id: "1", key: "k", data: "" });
    q.cancel("k");
    await q.idle();
    expect(String(reason)).toMatch(/cancelled/);
  });

  it("reports a handler that throws and goes on with the next job", async () => {
    const errors: string[] = [];
    const ran: string[] = [];
    const q = createInProcessQueue<string>({
      concurrency: 1,
      handler: async (j) => {
        ran.push(j.id);
        if (j.id === "1") throw new Error("boom");
      },
      onError: (j, e) => errors.push(`${j.id}: ${(e as Error).message}`),
    });
    q.enqueue({ id: "1", key: "k", data: "" });
    q.enqueue({ id: "2", key: "k", data: "" });
    await q.idle();
    expect(errors).toEqual(["1: boom"]);
    expect(ran).toEqual(["1", "2"]);
  });

  it("drain finishes queued work and then refuses new jobs", async () => {
    const ran: string[] = [];
    const q = createInProcessQueue<string>({ concurrency: 1, handler: async (j) => void ran.push(j.id) });
    q.enqueue({ id: "1", key: "k", data: "" });
    q.enqueue({ id: "2", key: "k", data: "" });
    await q.drain();
    expect(ran).toEqual(["1", "2"]);
    expect(q.enqueue({ id: "3", key: "k", data: "" })).toBe(false);
  });

  it("shutdown drops queued jobs and aborts running ones after the grace period, telling the callback which", async () => {
    const cutOff: string[] = [];
    let abortReason: unknown;
    const q = createInProcessQueue<string>({
      concurrency: 1,
      handler: (_j, signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => ((abortReason = signal.reason), resolve()))),
      onCutOff: (j, why) => cutOff.push(`${j.id}:${why}`),
    });
    q.enqueue({ id: "running", key: "a", data: "" });
    q.enqueue({ id: "waiting", key: "b", data: "" });
    const cut = await q.shutdown(10);
    expect(cut.map((j) => j.id)).toEqual(["waiting", "running"]);
    expect(cutOff).toEqual(["waiting:dropped", "running:aborted"]);
    expect(String(abortReason)).toMatch(/shutting down/);
    expect(q.stats()).toEqual({ running: 0, queued: 0 });
  });

  it("shutdown returns nothing when running jobs finish in time", async () => {
    const gate = deferred();
    const q = createInProcessQueue<string>({ concurrency: 1, handler: () => gate.promise });
    q.enqueue({ id: "1", key: "a", data: "" });
    const stopping = q.shutdown(60_000);
    gate.resolve();
    expect(await stopping).toEqual([]);
  });
});
