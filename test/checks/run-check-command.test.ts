import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { commandLine, runCheckCommand } from "../../src/checks/run-check-command.js";
import { renderCheckReflection } from "../../src/checks/render-check-reflection.js";

describe("runCheckCommand", () => {
  let dir: string;
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH, OPENAI_API_KEY: "sk-should-not-leak" } });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "check-"));
    await writeFile(path.join(dir, "a.py"), "x = 1\ny = 2\nz = 3\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("appends edited files to lint commands, quoted, or substitutes {files}", () => {
    expect(commandLine({ kind: "lint", command: "ruff check", cwd: dir, timeoutMs: 1, files: ["a.py", "my file.py"] })).toBe("ruff check a.py 'my file.py'");
    expect(commandLine({ kind: "lint", command: "eslint {files} --quiet", cwd: dir, timeoutMs: 1, files: ["b c.ts"] })).toBe("eslint 'b c.ts' --quiet");
    expect(commandLine({ kind: "test", command: "npm test", cwd: dir, timeoutMs: 1, files: ["a.py"] })).toBe("npm test");
  });

  it("reports a failing lint with parsed locations, ANSI stripped, and the code context in the reflection", async () => {
    const r = await runCheckCommand(exec, { kind: "lint", command: "printf '\\033[31ma.py:2:1: E999 bad thing\\033[0m\\n'; exit 1", cwd: dir, timeoutMs: 10_000 });
    expect(r.ok).toBe(false);
    expect(r.output).toBe("a.py:2:1: E999 bad thing\n");
    expect(r.locations).toEqual([{ path: "a.py", line: 2, column: 1, message: "E999 bad thing" }]);
    const text = renderCheckReflection(r, new Map([["a.py", "x = 1\ny = 2\nz = 3\n"]]));
    expect(text).toContain("█y = 2");
  });

  it("passes a green command and never shows the model key to it", async () => {
    const r = await runCheckCommand(exec, { kind: "test", command: "env", cwd: dir, timeoutMs: 10_000 });
    expect(r.ok).toBe(true);
    expect(r.output).not.toContain("sk-should-not-leak");
  });

  it("explains a timeout and a missing command instead of blaming the code", async () => {
    const slow = await runCheckCommand(exec, { kind: "test", command: "sleep 5", cwd: dir, timeoutMs: 200 });
    expect(slow).toMatchObject({ ok: false, timedOut: true });
    expect(slow.output).toMatch(/did not finish within/);
    const missing = await runCheckCommand(exec, { kind: "lint", command: "no-such-linter-xyz", cwd: dir, timeoutMs: 5000 });
    expect(missing.output).toMatch(/was not found/);
  });
});
