import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { overheadByCache } from "../../bench/replay-bench.js";
import { checksRanIn, runIdOf, timeCiCommands } from "../../bench/replay/ci-commands.js";
import type { ReplayResult } from "../../bench/replay/run-replay.js";
import { checksRan, type RunOutcome } from "../../src/run/run-outcome.js";
import type { CoderResult } from "../../src/coder/types.js";
import { testExec } from "../helpers/test-exec.js";

describe("the replay judge's second measure: CI's own commands, as the bot ran them, run once", () => {
  const RUN = "56d9e915-4311-4821-a407-84a4e5ce9988";

  it("reads the run's id from its status comment", () => {
    expect(runIdOf(`<!-- aider-bot:run:${RUN} -->\n🚀 Pushed`)).toBe(RUN);
    expect(runIdOf("no marker")).toBeNull();
  });

  it("the run's `run finished` log line names the commands its checks ran, in order, with where and how", () => {
    const result = {
      checkRuns: [
        { kind: "setup", command: "npm ci", source: "ci.yml", asWritten: true, status: "passed" },
        { kind: "lint", command: "npm run lint", cwd: "web", asWritten: true, status: "passed" },
        { kind: "test", command: "npm test", asWritten: true, status: "failed", note: "exit 1" },
        { kind: "test", command: "make check", status: "not-run", note: "an earlier check failed" },
      ],
    } as unknown as CoderResult;
    const outcome = { kind: "pushed", result, sha: "s", url: "u", elapsedMs: 1 } as RunOutcome;
    expect(checksRan(outcome)).toEqual({
      checks: [
        { kind: "setup", command: "npm ci", asWritten: true, status: "passed" },
        { kind: "lint", command: "npm run lint", cwd: "web", asWritten: true, status: "passed" },
        { kind: "test", command: "npm test", asWritten: true, status: "failed" },
        { kind: "test", command: "make check", status: "not-run" },
      ],
    });
    expect(checksRan({ kind: "refused", message: "no", elapsedMs: 1 })).toEqual({});
  });

  it("finds them in the app's log by the run's id, leaving out what the bot did not run", () => {
    const line = (job: string, extra: object) =>
      JSON.stringify({ level: 30, job, msg: "run finished", outcome: "pushed", ...extra });
    const checks = [
      { kind: "setup", command: "npm ci", asWritten: true, status: "passed" },
      { kind: "test", command: "npm test", asWritten: true, status: "passed" },
      { kind: "test", command: "make check", status: "not-run" },
    ];
    const log = [
      "plain text from a job's stderr",
      line("other-run", { checks: [{ kind: "test", command: "other", status: "passed" }] }),
      JSON.stringify({ level: 30, job: RUN, msg: "stage", stage: "tests" }),
      `{ half a line ${RUN} "run finished"`,
      line(RUN, { checks }),
    ].join("\n");
    expect(checksRanIn(log, RUN)).toEqual(checks.slice(0, 2));
    expect(checksRanIn(line(RUN, {}), RUN)).toEqual([]);
    expect(checksRanIn(log, "not-logged")).toBeNull();
  });

  describe("timeCiCommands (real processes)", () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "replay-ci-"));
      await mkdir(path.join(dir, "web"));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));
    const exec = testExec({ sourceEnv: process.env });

    it("runs them in order, each in its folder, CI's scripts as CI runs them, with the judge's environment", async () => {
      const time = await timeCiCommands(
        exec,
        dir,
        [
          { kind: "setup", command: 'echo "$JUDGE_HOME" > installed', asWritten: true, status: "passed" },
          { kind: "lint", command: "cat ../installed > linted", cwd: "web", asWritten: true, status: "passed" },
          { kind: "test", command: "test -f web/linted\necho tested >> log", asWritten: true, status: "passed" },
        ],
        { JUDGE_HOME: "/judge" },
      );
      expect(time).toMatchObject({ ok: true, tail: "" });
      expect(time.ms).toBeGreaterThan(0);
      expect(await readFile(path.join(dir, "web", "linted"), "utf8")).toBe("/judge\n");
      expect(await readFile(path.join(dir, "log"), "utf8")).toBe("tested\n");
    });

    it("a failing command is named, and the rest still run (the whole list's time is what is compared)", async () => {
      const time = await timeCiCommands(
        exec,
        dir,
        [
          // CI's script stops at its first failing line, as the bot's run of it does.
          { kind: "test", command: "echo broken >&2\nfalse\ntouch not-reached", asWritten: true, status: "failed" },
          { kind: "test", command: "touch second", asWritten: true, status: "passed" },
        ],
        {},
      );
      expect(time.ok).toBe(false);
      expect(time.tail).toMatch(/^`echo broken >&2`: /);
      await expect(readFile(path.join(dir, "not-reached"))).rejects.toThrow();
      expect(await readFile(path.join(dir, "second"), "utf8")).toBe("");
    });
  });

  it("the bench prints the bot's time over CI's commands beside its time over the judge's, cold and warm apart", () => {
    const result = (cache: "cold" | "warm", botMs: number, ci: ReplayResult["ci"]): ReplayResult =>
      ({ variant: "clean", cache, solved: true, botMs, setupMs: 1000, testMs: 1000, ci }) as ReplayResult;
    const ci = (ms: number, ok = true) => ({ ms, ok, commands: 3, tail: "" });
    const results = [
      result("cold", 8000, ci(4000)),
      result("warm", 4000, ci(2000)),
      result("warm", 6000, ci(500, false)),
      result("warm", 3000, undefined),
    ];
    expect(overheadByCache(results, "ci").map((r) => [r.cache, r.runs, r.median])).toEqual([
      ["cold", 1, 2],
      ["warm", 1, 2],
      ["all", 2, 2],
    ]);
    // The judge's ratio is as before: every solved clean run.
    expect(overheadByCache(results).map((r) => [r.cache, r.runs])).toEqual([
      ["cold", 1],
      ["warm", 3],
      ["all", 4],
    ]);
  });

  it("the time to the answer is measured apart from the time until the job is idle (a base command may finish after it)", () => {
    const result = (cache: "cold" | "warm", botMs: number, answeredMs?: number): ReplayResult =>
      ({ variant: "clean", cache, solved: true, botMs, answeredMs, setupMs: 1000, testMs: 1000 }) as ReplayResult;
    const results = [result("cold", 24_000, 4000), result("warm", 3000, 3000), result("warm", 5000)];
    expect(overheadByCache(results, "judge", "answered").map((r) => [r.cache, r.runs, r.median])).toEqual([
      ["cold", 1, 2],
      ["warm", 1, 1.5],
      ["all", 2, 1.5],
    ]);
    expect(overheadByCache(results).map((r) => [r.cache, r.median])).toEqual([
      ["cold", 12],
      ["warm", 1.5],
      ["all", 2.5],
    ]);
  });
});
