import path from "node:path";
import { createExec, type ExecOptions } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";
import { CLI_MAIN } from "../helpers/cli-entry.js";
import { pidsWithArg, survivorsOf, uniqueSleep } from "../helpers/process-probe.js";
import { waitUntil } from "../helpers/wait-until.js";

// The contract holds for both ways a process is started: here (createExec), and by the built spawn helper a job
// process uses (exec/spawn-helper), whose child entry is the built one, as in the app.
const built = path.join(path.dirname(CLI_MAIN), "../exec/spawn-helper.js");
const { startSpawnHelper } = (await import(built)) as typeof import("../../src/exec/spawn-helper.js");
const helper = startSpawnHelper({ PATH: process.env.PATH ?? "/usr/bin:/bin" });
afterAll(() => helper.close());

const implementations: [string, (options: ExecOptions) => Exec][] = [
  ["createExec", createExec],
  ["the spawn helper", (options) => helper.exec(options)],
];

describe.each(implementations)("%s", (_name, createExec) => {
  describe("runs", () => {
    const exec = createExec({
      sourceEnv: { PATH: process.env.PATH, HOME: "/tmp", OPENAI_API_KEY: "sk-secret", GITHUB_TOKEN: "ghs_x" },
    });

    it("passes only allow-listed variables to the child", async () => {
      const r = await exec.run({ command: "env", cwd: "/tmp" });
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain("HOME=/tmp");
      expect(r.output).not.toContain("sk-secret");
      expect(r.output).not.toContain("ghs_x");
    });

    it("reports a non-zero exit without throwing, with both streams", async () => {
      const r = await exec.run({ command: "echo out; echo err >&2; exit 3", shell: true, cwd: "/tmp" });
      expect(r).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
    });

    it("kills the whole process group on timeout", async () => {
      const n = uniqueSleep();
      const r = await exec.run({ command: `sleep ${n}; echo never`, shell: true, cwd: "/tmp", timeoutMs: 200 });
      expect(r.timedOut).toBe(true);
      expect(r.output).not.toContain("never");
      // Killed, not waited for: the sleep is gone when the result arrives.
      expect(await survivorsOf(n)).toEqual([]);
    });

    it("on timeout also kills children that left the process group with setsid", async () => {
      const n = uniqueSleep();
      const r = await exec.run({
        command: `setsid sleep ${n} >/dev/null 2>&1 & sleep ${n} >/dev/null 2>&1 & wait`,
        shell: true,
        cwd: "/tmp",
        timeoutMs: 300,
      });
      expect(r.timedOut).toBe(true);
      expect(await survivorsOf(n)).toEqual([]);
    });

    it("reports a command that cannot start", async () => {
      const r = await exec.run({ command: "definitely-not-a-command-xyz", cwd: "/tmp" });
      expect(r.spawnError).toMatch(/ENOENT/);
    });

    it("caps long output keeping head and tail", async () => {
      const r = await exec.run({ command: "seq 1 100000", shell: true, cwd: "/tmp", maxOutputBytes: 2000 });
      expect(r.output.length).toBeLessThan(2200);
      expect(r.output.startsWith("1\n2\n")).toBe(true);
      expect(r.output.trimEnd().endsWith("100000")).toBe(true);
      expect(r.output).toContain("characters cut");
    });
  });

  describe("cancellation", () => {
    it("kills the process group when the signal aborts", async () => {
      const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });
      const controller = new AbortController();
      const n = uniqueSleep();
      const running = exec.run({
        command: `sleep ${n}; echo never`,
        shell: true,
        cwd: "/tmp",
        signal: controller.signal,
        timeoutMs: 10_000,
      });
      // Aborted once the command runs (its sleep shows among the host's processes).
      await waitUntil(() => pidsWithArg(n).length > 0, "the command to start");
      controller.abort();
      const r = await running;
      expect(r.output).not.toContain("never");
      expect(r.timedOut).toBe(false);
      expect(await survivorsOf(n)).toEqual([]);
    });
  });

  describe("streams", () => {
    const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });

    it("feeds the input on stdin, and a process that never reads it still ends normally", async () => {
      expect(await exec.run({ command: "cat", cwd: "/tmp", input: "é line\n" })).toMatchObject({
        exitCode: 0,
        stdout: "é line\n",
      });
      const ignored = await exec.run({ command: "true", cwd: "/tmp", input: "x".repeat(1_000_000) });
      expect(ignored).toMatchObject({ exitCode: 0 });
      expect(ignored.spawnError).toBeUndefined();
    });

    it("keeps multi-byte characters whole across chunks, in stdout, stderr and the interleaved output", async () => {
      const line = "€🙂".repeat(40_000);
      const r = await exec.run({
        command: "node",
        args: ["-e", `process.stdout.write("€🙂".repeat(40000)); process.stderr.write("ü")`],
        cwd: "/tmp",
        maxOutputBytes: 1_000_000,
      });
      // Not toBe: a mismatch would print 120,000 characters.
      expect(r.stdout === line).toBe(true);
      expect(r.stderr).toBe("ü");
      expect(r.output.length).toBe(line.length + 1);
    });

    it("lets a process that prints far more than it keeps run to its end, and keeps the head and the tail", async () => {
      // 60 MB, six times what is ever buffered: the end of the output is still there, and the exit code.
      const r = await exec.run({
        command: "head -c 60000000 /dev/zero | tr '\\0' x; echo; echo THE-END; exit 4",
        shell: true,
        cwd: "/tmp",
        maxOutputBytes: 5_000,
      });
      expect(r.exitCode).toBe(4);
      expect(r.output.length).toBeLessThan(5_100);
      expect(r.output.trimEnd().endsWith("THE-END")).toBe(true);
      expect(r.output).toContain("[59995");
    });

    it("says a command killed by a signal it did not get from its timeout was killed, and by what", async () => {
      const r = await exec.run({ command: "kill -9 $$", shell: true, cwd: "/tmp" });
      expect(r).toMatchObject({ exitCode: null, timedOut: false, spawnError: "the command was killed by SIGKILL" });
    });

    it("reports arguments Node refuses as a command that could not start", async () => {
      const r = await exec.run({ command: "echo", args: ["a\0b"], cwd: "/tmp" });
      expect(r.exitCode).toBeNull();
      expect(r.spawnError).toMatch(/null bytes|must be a string without null bytes/i);
    });
  });
});
