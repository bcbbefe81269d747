import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CLI_MAIN } from "../helpers/cli-entry.js";
import { pidsWithArg, survivorsOf, uniqueSleep } from "../helpers/process-probe.js";
import { waitUntil } from "../helpers/wait-until.js";
import { alive } from "../../src/app/sweep-job-dirs.js";

// The built module and its built child entry, as a job process runs them (the shared contract with createExec is
// tested in create-exec.test.ts).
const built = path.join(path.dirname(CLI_MAIN), "../exec/spawn-helper.js");
const { startSpawnHelper } = (await import(built)) as typeof import("../../src/exec/spawn-helper.js");
const PATH = process.env.PATH ?? "/usr/bin:/bin";

const environOf = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
const parentOf = async (exec: {
  run: (r: { command: string; args: string[]; cwd: string }) => Promise<{ stdout: string }>;
}) => Number((await exec.run({ command: "sh", args: ["-c", "echo $PPID"], cwd: "/tmp" })).stdout.trim());

/** Poll for `condition` (the suite's one polling helper); a timeout says what was awaited and, with `seen`, what was seen. */
const until = (condition: () => boolean | Promise<boolean>, what: string, seen?: () => string) =>
  waitUntil(condition, () => `waiting for ${what}${seen ? `\n${seen()}` : ""}`);

describe("startSpawnHelper", () => {
  it("starts each process from the helper, which holds only the allow-listed part of the environment it was given", async () => {
    // The source holds a secret and a variable outside the allow-list: the helper gets neither.
    const helper = startSpawnHelper({ PATH, HOME: "/tmp", OPENAI_API_KEY: "sk-not-for-the-helper", ONLY: "1" });
    try {
      const exec = helper.exec({ sourceEnv: { PATH, HOME: "/tmp", OPENAI_API_KEY: "sk-not-for-children" } });
      expect(await parentOf(exec)).toBe(helper.pid());
      expect(helper.pid()).not.toBe(process.pid);
      // Besides Node's own IPC variables, which fork adds.
      expect(
        environOf(helper.pid()!)
          .filter((v) => !v.startsWith("NODE_CHANNEL_"))
          .sort(),
      ).toEqual(["HOME=/tmp", `PATH=${PATH}`]);
      const env = await exec.run({ command: "env", cwd: "/tmp" });
      expect(env.stdout).toContain("HOME=/tmp");
      expect(env.stdout).not.toContain("sk-not-for-children");
      expect(env.stdout).not.toContain("ONLY=1");
    } finally {
      helper.close();
    }
  });

  it("runs several processes at once, each answered with its own result", async () => {
    const helper = startSpawnHelper({ PATH });
    try {
      const exec = helper.exec({ sourceEnv: { PATH } });
      const runs = await Promise.all(
        [3, 1, 2].map((n) =>
          exec.run({ command: "sh", args: ["-c", `sleep 0.${n}; echo ${n}; exit ${n}`], cwd: "/tmp" }),
        ),
      );
      expect(runs.map((r) => [r.stdout, r.exitCode])).toEqual([
        ["3\n", 3],
        ["1\n", 1],
        ["2\n", 2],
      ]);
    } finally {
      helper.close();
    }
  });

  it("a helper that dies mid-run: the run ends as a command that could not finish, with why; later runs start here", async () => {
    const helper = startSpawnHelper({ PATH });
    const exec = helper.exec({ sourceEnv: { PATH } });
    const n = uniqueSleep();
    const pid = helper.pid()!;
    const running = exec.run({ command: "sleep", args: [n], cwd: "/tmp" });
    await until(() => pidsWithArg(n).length > 0, "the sleep to start");
    process.kill(pid, "SIGKILL");
    const r = await running;
    expect(r.exitCode).toBeNull();
    expect(r.spawnError).toMatch(/the process helper exited \(SIGKILL\) while the command ran/);
    expect(helper.pid()).toBeUndefined();
    expect(await parentOf(exec)).toBe(process.pid);
    // The orphan of the killed helper (its group was its own): the test cleans it up.
    for (const p of pidsWithArg(n)) process.kill(-p, "SIGKILL");
  });

  it("after close, runs start in this process", async () => {
    const helper = startSpawnHelper({ PATH });
    const exec = helper.exec({ sourceEnv: { PATH } });
    expect(await parentOf(exec)).toBe(helper.pid());
    helper.close();
    expect(await parentOf(exec)).toBe(process.pid);
  });

  it("starts a process that waits from the helper, hands it its line and answers its result; one discarded unused ends", async () => {
    const helper = startSpawnHelper({ PATH });
    try {
      const exec = helper.exec({ sourceEnv: { PATH } });
      const n = uniqueSleep();
      const waiting = exec.startWaiting!({
        command: "sh",
        args: ["-c", 'IFS= read -r l <&3; echo "got $l from $PPID"; exit 4', n],
        cwd: "/tmp",
      });
      const unused = exec.startWaiting!({ command: "sh", args: ["-c", "read -r l <&3", `${n}-unused`], cwd: "/tmp" });
      await until(() => pidsWithArg(n).length === 1 && pidsWithArg(`${n}-unused`).length === 1, "both waiting");
      const r = await waiting.hand("a line", { timeoutMs: 30_000 });
      expect(r?.exitCode).toBe(4);
      expect(r?.stdout).toBe(`got a line from ${helper.pid()}\n`);
      expect(await waiting.hand("again", {})).toBeNull();
      await unused.discard();
      expect(pidsWithArg(`${n}-unused`)).toEqual([]);
    } finally {
      helper.close();
    }
  });

  it("kills every process still running when the process that started the helper is killed", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "spawn-helper-"));
    const n = uniqueSleep();
    const script = path.join(dir, "parent.mjs");
    await writeFile(
      script,
      [
        `const { startSpawnHelper } = await import(${JSON.stringify(built)});`,
        `const helper = startSpawnHelper({ PATH: ${JSON.stringify(PATH)} });`,
        `const exec = helper.exec({ sourceEnv: { PATH: ${JSON.stringify(PATH)} } });`,
        `void exec.run({ command: "sh", args: ["-c", "sleep ${n} & sleep ${n}; wait"], cwd: "/tmp" });`,
        // One waiting for its line (a sandbox started ahead) ends too.
        `exec.startWaiting({ command: "sh", args: ["-c", "read -r l <&3", "${n}"], cwd: "/tmp" });`,
        `console.log(helper.pid());`,
        `setInterval(() => {}, 1000);`,
      ].join("\n"),
    );
    const parent = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      let out = "";
      parent.stdout.on("data", (d: Buffer) => (out += d.toString()));
      await until(
        () => pidsWithArg(n).length === 3 && out.includes("\n"),
        "the parent's two sleeps and its waiting one",
      );
      const helperPid = Number(out.trim());
      parent.kill("SIGKILL");
      expect(await survivorsOf(n)).toEqual([]);
      await until(() => !pidsWithArg(n).length && !alive(helperPid), "the helper to exit");
    } finally {
      parent.kill("SIGKILL");
      for (const p of pidsWithArg(n)) process.kill(p, "SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
