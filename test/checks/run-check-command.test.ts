import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { checkShellScript } from "../../src/checks/check-shell.js";
import { commandLine, runCheckCommand } from "../../src/checks/run-check-command.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";

describe("commandLine", () => {
  it.each([
    ["lint: files appended", { kind: "lint", command: "ruff check", files: ["a.py", "b.py"] }, "ruff check a.py b.py"],
    [
      "lint: a path with spaces is quoted",
      { kind: "lint", command: "ruff check", files: ["my dir/a b.py"] },
      "ruff check 'my dir/a b.py'",
    ],
    [
      "{files} substituted, quoted",
      { kind: "lint", command: "eslint {files} --quiet", files: ["b c.ts", "d.ts"] },
      "eslint 'b c.ts' d.ts --quiet",
    ],
    [
      "a quote in a name cannot break out",
      { kind: "lint", command: "x", files: ["it's;rm -rf ~.ts"] },
      "x 'it'\\''s;rm -rf ~.ts'",
    ],
    ["a leading dash is not an option", { kind: "lint", command: "x", files: ["-rf.ts"] }, "x ./-rf.ts"],
    ["test: files not appended", { kind: "test", command: "npm test", files: ["a.py"] }, "npm test"],
    ["test: {files} honoured", { kind: "test", command: "pytest {files}", files: ["t x.py"] }, "pytest 't x.py'"],
    ["lint without files", { kind: "lint", command: "npm run lint", files: [] }, "npm run lint"],
  ] as const)("%s", (_name, cmd, expected) => {
    expect(commandLine(cmd)).toBe(expected);
  });
});

describe("runCheckCommand (real processes)", () => {
  let dir: string;
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH, OPENAI_API_KEY: "sk-should-not-leak" } });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "check-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("reports a failing lint: exit code, ANSI stripped, locations parsed (absolute paths made relative)", async () => {
    const r = await runCheckCommand(exec, {
      kind: "lint",
      command: `printf '\\033[31m${dir}/a.py:2:1: E999 bad thing\\033[0m\\n'; exit 3`,
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ kind: "lint", ok: false, exitCode: 3, output: `${dir}/a.py:2:1: E999 bad thing\n` });
    expect(r.locations).toEqual([{ path: "a.py", line: 2, column: 1, message: "E999 bad thing" }]);
  });

  it("passes the quoted file with spaces to the command as one argument", async () => {
    await writeFile(path.join(dir, "my file.py"), "x = 1\n");
    const r = await runCheckCommand(exec, {
      kind: "lint",
      command: "ls -1 {files} && cat {files}",
      cwd: dir,
      timeoutMs: 10_000,
      files: ["my file.py"],
    });
    expect(r.command).toBe("ls -1 'my file.py' && cat 'my file.py'");
    expect(r).toMatchObject({ ok: true, output: "my file.py\nx = 1\n" });
  });

  it("passes a green command with exit 0 whatever it prints, and never shows the model key to it", async () => {
    const r = await runCheckCommand(exec, {
      kind: "test",
      command: "env; echo 'src/a.ts:1:1 warning'",
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ ok: true, exitCode: 0, locations: [] });
    expect(r.output).not.toContain("sk-should-not-leak");
  });

  it("explains a timed-out test (maybe an endless loop) without calling it an environment error", async () => {
    const r = await runCheckCommand(exec, { kind: "test", command: "echo started; sleep 5", cwd: dir, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, timedOut: true });
    expect(r.environmentError).toBeUndefined();
    expect(r.output).toMatch(/did not finish within 0 s and was stopped/);
    expect(r.output).toMatch(/endless loop/);
    expect(r.output).toContain("started");
  });

  it("treats a timed-out lint as an environment problem", async () => {
    const r = await runCheckCommand(exec, { kind: "lint", command: "sleep 5", cwd: dir, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, timedOut: true, environmentError: true });
  });

  it.each([
    ["missing", "no-such-linter-xyz --fix", /`no-such-linter-xyz`, which it names, is not installed here \(exit 127\)/],
    ["not executable", "./script.sh", /could not be executed \(exit 126/],
    ["missing, in a script it runs,", "sh ./calls.sh", /was not found \(exit 127\)/],
  ])("reports a %s command as an environment error", async (_name, command, message) => {
    await writeFile(path.join(dir, "script.sh"), "#!/bin/sh\necho hi\n", { mode: 0o644 });
    await writeFile(path.join(dir, "calls.sh"), "no-such-tool-xyz --version\n");
    const r = await runCheckCommand(exec, { kind: "lint", command, cwd: dir, timeoutMs: 5000, files: ["a.py"] });
    expect(r).toMatchObject({ ok: false, environmentError: true, locations: [] });
    expect(r.output).toMatch(message);
    expect(r.output).toMatch(/setup command|\.github\/aider\.yml/);
  });

  it("names a program the command names that is not installed, when make (exit 2) could not find it", async () => {
    await writeFile(path.join(dir, "Makefile"), "all:\n\t$(CC) -o x x.c\n");
    const r = await runCheckCommand(exec, {
      kind: "test",
      command: "CC=no-such-cc-xyz make",
      cwd: dir,
      timeoutMs: 10_000,
      ciShell: true,
    });
    expect(r).toMatchObject({ ok: false, exitCode: 2, environmentError: true, missingTool: "no-such-cc-xyz" });
    expect(r.output).toMatch(
      /^The test command `CC=no-such-cc-xyz make` could not run: `no-such-cc-xyz`, which it names/,
    );
    expect(r.output).toContain("make: no-such-cc-xyz: No such file or directory");
  });

  it("leaves a program the checkout's Makefile calls, unnamed by the command, to the base's comparison", async () => {
    await writeFile(path.join(dir, "Makefile"), "test:\n\tno-such-runner-xyz tests\n");
    const r = await runCheckCommand(exec, { kind: "test", command: "make test", cwd: dir, timeoutMs: 10_000 });
    expect(r).toMatchObject({ ok: false, exitCode: 2 });
    expect(r.environmentError).toBeUndefined();
    expect(r.missingTool).toBeUndefined();
  });

  it("tests the code as edited even when an edit keeps a file's size within the same second (no stale Python bytecode)", async () => {
    // Python's cached bytecode is trusted while the source keeps its size and its mtime in whole seconds: a run
    // that rewrites `a * b` as `a + b` within one second would test the old code and report the old failure.
    const file = path.join(dir, "calc.py");
    const second = new Date(Math.floor(Date.now() / 1000) * 1000);
    const check = {
      kind: "test",
      command: "python3 -c 'import calc; print(calc.add(2, 3))'",
      cwd: dir,
      timeoutMs: 30_000,
    } as const;
    await writeFile(file, "def add(a, b):\n    return a * b\n");
    await utimes(file, second, second);
    expect((await runCheckCommand(exec, check)).output.trim()).toBe("6");
    await writeFile(file, "def add(a, b):\n    return a + b\n");
    await utimes(file, second, new Date(second.getTime() + 500));
    expect((await runCheckCommand(exec, check)).output.trim()).toBe("5");
    // Nor is a `__pycache__/` folder left in the checkout, where a later listing or commit could meet it.
    expect(await readdir(dir)).toEqual(["calc.py"]);
  });

  it("keeps the head and the tail of a long output and still finds locations in the cut part", async () => {
    const r = await runCheckCommand(exec, {
      kind: "test",
      command:
        "for i in $(seq 1 3000); do echo \"noise line $i\"; done; echo 'src/deep.py:1500: AssertionError'; echo 'FAILED 1 test'; exit 1",
      cwd: dir,
      timeoutMs: 10_000,
      maxTokens: 300,
    });
    expect(r.output).toMatch(/^noise line 1\n/);
    expect(r.output).toMatch(/FAILED 1 test\n?$/);
    expect(r.output).toMatch(/lines cut/);
    expect(r.output).not.toContain("noise line 1500\n");
    expect(r.locations).toEqual([{ path: "src/deep.py", line: 1500, message: "AssertionError" }]);
  });
});

describe("runCheckCommand (fake exec)", () => {
  const fakeExec = (result: Partial<Awaited<ReturnType<Exec["run"]>>>): Exec & { calls: unknown[] } => {
    const calls: unknown[] = [];
    return {
      calls,
      run: async (req) => {
        calls.push(req);
        return { exitCode: null, output: "", stdout: "", stderr: "", timedOut: false, durationMs: 1, ...result };
      },
    };
  };

  it("runs the line through the shell with the timeout and cwd", async () => {
    const exec = fakeExec({ exitCode: 0 });
    await runCheckCommand(exec, { kind: "lint", command: "eslint", cwd: "/repo", timeoutMs: 1234, files: ["a.ts"] });
    expect(exec.calls).toEqual([
      expect.objectContaining({
        command: checkShellScript("eslint a.ts", { stopAtFirstFailure: false }),
        shell: true,
        cwd: "/repo",
        timeoutMs: 1234,
      }),
    ]);
  });

  it("reports a spawn failure as what happened plus what to do", async () => {
    const r = await runCheckCommand(fakeExec({ spawnError: "spawn /bin/sh ENOENT" }), {
      kind: "setup",
      command: "npm ci",
      cwd: "/repo",
      timeoutMs: 1,
    });
    expect(r).toMatchObject({ kind: "setup", ok: false, environmentError: true });
    expect(r.output).toMatch(/could not be started: spawn \/bin\/sh ENOENT\. Check the command/);
  });

  it("a command the sandbox did not run (its image could not be pulled) says so, with no tool to install", async () => {
    const r = await runCheckCommand(
      fakeExec({
        spawnError: "not run: the image `x:1` (from the operator's default image) could not be pulled: denied",
      }),
      { kind: "test", command: "npm test", cwd: "/repo", timeoutMs: 1 },
    );
    expect(r).toMatchObject({
      ok: false,
      environmentError: true,
      notRun: "the image `x:1` (from the operator's default image) could not be pulled: denied",
    });
    expect(r.output).toBe(
      "The test command `npm test` was not run: the image `x:1` (from the operator's default image) could not be pulled: denied.",
    );
  });

  it("a setup command that fails comes back as a setup failure, never as a failing test", async () => {
    const r = await runCheckCommand(fakeExec({ exitCode: 1, output: "error: No `pyproject.toml` found" }), {
      kind: "setup",
      command: "uv sync",
      cwd: "/repo",
      timeoutMs: 1,
    });
    expect(r).toMatchObject({ kind: "setup", ok: false, command: "uv sync", exitCode: 1 });
  });

  it("reports a process killed by a signal", async () => {
    const r = await runCheckCommand(fakeExec({ exitCode: null, output: "partial" }), {
      kind: "test",
      command: "npm test",
      cwd: "/repo",
      timeoutMs: 1,
    });
    expect(r).toMatchObject({ ok: false });
    expect(r.output).toMatch(/killed by a signal/);
  });
});

describe("runCheckCommand runs scripts discovered from CI as CI does (real processes)", () => {
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });
  const run = (command: string, ciShell = true) =>
    runCheckCommand(exec, { kind: "test", command, cwd: os.tmpdir(), timeoutMs: 10_000, ciShell });

  it("with bash: process substitution works (a Travis/GitHub lint line: `diff -u <(echo -n) <(gofmt -d .)`)", async () => {
    expect(await run("diff -u <(echo -n) <(printf '')")).toMatchObject({ ok: true, exitCode: 0 });
    const bad = await run("diff -u <(echo -n) <(echo 'x.go: not formatted')");
    expect(bad).toMatchObject({ ok: false, exitCode: 1, command: "diff -u <(echo -n) <(echo 'x.go: not formatted')" });
    expect(bad.output).toContain("+x.go: not formatted");
  });

  it("stops at the first failing line, as GitHub's `bash -e` does, instead of passing on the last one", async () => {
    const r = await run("cd .\nsh -c 'echo 2 tests failed; exit 4'\ncd ..\necho done");
    expect(r).toMatchObject({ ok: false, exitCode: 4 });
    expect(r.output).not.toContain("done");
  });

  it("a configured command (.github/aider.yml) runs as its author wrote it for `sh -c`: `a; b` runs b when a fails", async () => {
    const r = await run("sh -c 'echo lint warned; exit 3'; echo done", false);
    expect(r).toMatchObject({ ok: true, exitCode: 0 });
    expect(r.output).toContain("done");
  });
});
