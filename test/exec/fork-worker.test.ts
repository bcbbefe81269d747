import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ForkWorkerOptions } from "../../src/exec/fork-worker.js";
import { JobStopped } from "../../src/exec/job-stopped.js";
import { builtScript } from "../helpers/build-once.js";
import { CLI_MAIN } from "../helpers/cli-entry.js";
import { waitUntil } from "../helpers/wait-until.js";

// The built module (jest's global setup built it), as the app runs it: its job processes start on the built child
// entry and load the fixture built to JavaScript, instead of compiling TypeScript through tsx in each process.
const built = path.join(path.dirname(CLI_MAIN), "../exec/fork-worker.js");
const { createForkPool, forkWorker } = (await import(built)) as typeof import("../../src/exec/fork-worker.js");
const module = builtScript("test/fixtures/jobs/child-job.ts");
const base = { module, graceMs: 2_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ONLY_THIS: "1" } };
const run = (input: unknown, extra: Partial<ForkWorkerOptions> = {}) =>
  forkWorker({ ...base, input, signal: new AbortController().signal, ...extra });

describe("forkWorker", () => {
  it("runs the job in another process with the given input and only the given environment", async () => {
    const messages: unknown[] = [];
    const outcome = await run({ mode: "ok", value: { a: [1, 2] } }, { onMessage: (m) => messages.push(m) });
    expect(outcome).toMatchObject({ kind: "done", result: { got: { a: [1, 2] } } });
    const result = (outcome as { result: { env: string[]; pid: number } }).result;
    expect(result.pid).not.toBe(process.pid);
    expect(result.env.filter((k) => !["PATH", "ONLY_THIS"].includes(k))).toEqual([]);
    expect(messages).toEqual([{ progress: "half" }]);
  });

  it("answers the job's requests with the parent's onRequest, each to the request that asked, failures as errors", async () => {
    const onRequest = async (m: unknown) => {
      const n = (m as { n: number }).n;
      if (n < 0) throw new Error("not allowed");
      return { doubled: n * 2 };
    };
    expect(await run({ mode: "ask" }, { onRequest })).toEqual({
      kind: "done",
      result: { a: { doubled: 2 }, b: { doubled: 4 }, refused: "not allowed" },
    });
    expect(await run({ mode: "ask" })).toEqual({ kind: "failed", message: "the parent answers no requests" });
  });

  it("reports a throw, an exit and an out-of-memory as outcomes of that job only", async () => {
    expect(await run({ mode: "throw" })).toEqual({ kind: "failed", message: "the job broke" });
    expect(await run({ mode: "exit" })).toMatchObject({ kind: "crashed", code: 3 });
    // Quiet: V8's "heap out of memory" report on a shared stderr reads to a jest worker as its own death.
    const oom = await run({ mode: "oom" }, { maxOldSpaceMb: 24, quiet: true });
    expect(oom.kind).toBe("crashed");
  });

  it("asks the child to stop on abort, and kills one that ignores it after the grace period", async () => {
    const polite = new AbortController();
    // Stop once the job runs (the grace is generous: this is about the message, not the timing).
    const p1 = run(
      { mode: "wait" },
      { signal: polite.signal, graceMs: 60_000, onMessage: () => polite.abort(new JobStopped("cancel")) },
    );
    expect(await p1).toEqual({ kind: "done", result: { stopped: "cancelled" } });
    const stubborn = new AbortController();
    stubborn.abort(new JobStopped("shutdown"));
    expect(await run({ mode: "stubborn" }, { signal: stubborn.signal, graceMs: 100 })).toMatchObject({
      kind: "crashed",
      signal: "SIGKILL",
    });
  });
});

describe("createForkPool", () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false; // ESRCH: no such process
    }
  };

  it("hands each job to a process started (and preloaded) ahead, a fresh one per job", async () => {
    const pool = createForkPool(base);
    try {
      const spare = pool.idlePid();
      expect(spare).toBeDefined();
      const job = () =>
        pool.run({ module, input: { mode: "preloaded" }, signal: new AbortController().signal, graceMs: 2_000 });
      const first = await job();
      expect(first).toEqual({ kind: "done", result: { preloaded: true, pid: spare } });
      const second = await job();
      expect(second).toMatchObject({ kind: "done", result: { preloaded: true } });
      expect((second as { result: { pid: number } }).result.pid).not.toBe(spare);
      // Outcomes are the same as forkWorker's: a crash of the job is the job's.
      expect(
        await pool.run({ module, input: { mode: "exit" }, signal: new AbortController().signal, graceMs: 2_000 }),
      ).toMatchObject({ kind: "crashed", code: 3 });
    } finally {
      pool.close();
    }
  });

  it("starts the next spare when the job that took one ends, or after refillDelayMs while it runs, not at once", async () => {
    const pool = createForkPool({ ...base, refillDelayMs: 60_000 });
    const waitJob = () => {
      const stop = new AbortController();
      let ready = false;
      const outcome = pool.run({
        module,
        input: { mode: "wait" },
        signal: stop.signal,
        graceMs: 2_000,
        onMessage: () => (ready = true),
      });
      return { stop, outcome, ready: () => ready };
    };
    try {
      await waitUntil(() => pool.idlePid() !== undefined, "the pool never started its spare process");
      const job = waitJob();
      await waitUntil(job.ready, "the job never reported it was running");
      // While the job runs (its clone and map would compete with a spare's start-up), no spare is started.
      expect(pool.idlePid()).toBeUndefined();
      job.stop.abort();
      await job.outcome;
      expect(pool.idlePid()).toBeDefined();
    } finally {
      pool.close();
    }
    const quick = createForkPool({ ...base, refillDelayMs: 200 });
    try {
      await waitUntil(() => quick.idlePid() !== undefined, "the pool never started a spare process");
      const stop = new AbortController();
      const outcome = quick.run({ module, input: { mode: "wait" }, signal: stop.signal, graceMs: 2_000 });
      // A long job does not keep the pool empty: the spare comes after the delay.
      await waitUntil(() => quick.idlePid() !== undefined, "the pool never started a spare process");
      stop.abort();
      await outcome;
    } finally {
      quick.close();
    }
  });

  it("with spare: false keeps no process ahead, before or after a job: each job's process starts with it", async () => {
    const pool = createForkPool({ ...base, spare: false, refillDelayMs: 50 });
    try {
      expect(pool.idlePid()).toBeUndefined();
      const job = () =>
        pool.run({ module, input: { mode: "preloaded" }, signal: new AbortController().signal, graceMs: 2_000 });
      const first = await job();
      expect(first).toMatchObject({ kind: "done", result: { preloaded: true } });
      // Past the moment a pool with spares refills: the job's process has exited (a refill's other trigger, the
      // 50 ms refillDelayMs from the job's start, is shorter than any forked Node process's start-up and run).
      const firstPid = (first as { result: { pid: number } }).result.pid;
      await waitUntil(() => !alive(firstPid), `the first job's process ${firstPid} did not exit`);
      expect(pool.idlePid()).toBeUndefined();
      const second = await job();
      expect((second as { result: { pid: number } }).result.pid).not.toBe(
        (first as { result: { pid: number } }).result.pid,
      );
      expect(pool.idlePid()).toBeUndefined();
    } finally {
      pool.close();
    }
  });

  it("runs the job in a new process when the spare died while idle, and close() kills the spare", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "fork-pool-"));
    const marker = path.join(dir, "died");
    const pool = createForkPool({ ...base, env: { ...base.env, DIE_ONCE: marker } });
    try {
      await waitUntil(() => pool.idlePid() === undefined, "the spare process stayed listed after it died");
      expect(await readFile(marker, "utf8")).toBe("died");
      const outcome = await pool.run({
        module,
        input: { mode: "preloaded" },
        signal: new AbortController().signal,
        graceMs: 2_000,
      });
      expect(outcome).toMatchObject({ kind: "done", result: { preloaded: true } });
      const next = pool.idlePid();
      expect(next).toBeDefined();
      pool.close();
      await waitUntil(() => !alive(next!), "the spare process outlived close()");
      expect(pool.idlePid()).toBeUndefined();
    } finally {
      pool.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
