import { fileURLToPath } from "node:url";
import { forkWorker, type ForkWorkerOptions } from "../../src/exec/fork-worker.js";
import { childProcessHandler } from "../../src/jobs/child-process-handler.js";
import { JobStopped } from "../../src/jobs/job-engine.js";

const module = fileURLToPath(new URL("../fixtures/jobs/child-job.ts", import.meta.url));
const base = { module, graceMs: 2_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ONLY_THIS: "1" }, execArgv: ["--import", "tsx"] };
const run = (input: unknown, extra: Partial<ForkWorkerOptions> = {}) => forkWorker({ ...base, input, signal: new AbortController().signal, ...extra });

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

  it("reports a throw, an exit and an out-of-memory as outcomes of that job only", async () => {
    expect(await run({ mode: "throw" })).toEqual({ kind: "failed", message: "the job broke" });
    expect(await run({ mode: "exit" })).toMatchObject({ kind: "crashed", code: 3 });
    const oom = await run({ mode: "oom" }, { maxOldSpaceMb: 24 });
    expect(oom.kind).toBe("crashed");
  });

  it("asks the child to stop on abort, and kills one that ignores it after the grace period", async () => {
    const polite = new AbortController();
    // Stop once the job runs (the grace is generous: this is about the message, not the timing).
    const p1 = run({ mode: "wait" }, { signal: polite.signal, graceMs: 60_000, onMessage: () => polite.abort(new JobStopped("cancel")) });
    expect(await p1).toEqual({ kind: "done", result: { stopped: "cancelled" } });
    const stubborn = new AbortController();
    stubborn.abort(new JobStopped("shutdown"));
    expect(await run({ mode: "stubborn" }, { signal: stubborn.signal, graceMs: 100 })).toMatchObject({ kind: "crashed", signal: "SIGKILL" });
  });

  it("childProcessHandler turns a child's crash into a job crash, and a stop into a normal end", async () => {
    const handler = childProcessHandler<{ mode: string }>({ ...base, input: (job) => job.data });
    const job = (mode: string) => ({ id: "1", key: "o/r#1", installationId: 1, kind: "run" as const, data: { mode }, attempt: 1 });
    await expect(handler(job("ok"), new AbortController().signal)).resolves.toBeUndefined();
    await expect(handler(job("exit"), new AbortController().signal)).rejects.toThrow(/o\/r#1.*exited with code 3/);
    const stopped = new AbortController();
    stopped.abort(new JobStopped("shutdown"));
    await expect(handler(job("stubborn"), stopped.signal)).resolves.toBeUndefined();
  });
});
