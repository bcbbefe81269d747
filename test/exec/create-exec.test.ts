import { createExec } from "../../src/exec/create-exec.js";
import { survivorsOf, uniqueSleep } from "../helpers/process-probe.js";

describe("createExec", () => {
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH, HOME: "/tmp", OPENAI_API_KEY: "sk-secret", GITHUB_TOKEN: "ghs_x" } });

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
    const r = await exec.run({ command: "sleep 5; echo never", shell: true, cwd: "/tmp", timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.output).not.toContain("never");
    expect(r.durationMs).toBeLessThan(4000);
  });

  it("on timeout also kills children that left the process group with setsid", async () => {
    const n = uniqueSleep();
    const r = await exec.run({ command: `setsid sleep ${n} >/dev/null 2>&1 & sleep ${n} >/dev/null 2>&1 & wait`, shell: true, cwd: "/tmp", timeoutMs: 300 });
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

describe("createExec cancellation", () => {
  it("kills the process group when the signal aborts", async () => {
    const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await exec.run({ command: "sleep 5; echo never", shell: true, cwd: "/tmp", signal: controller.signal, timeoutMs: 10_000 });
    expect(r.output).not.toContain("never");
    expect(r.durationMs).toBeLessThan(4000);
  });
});
