import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { moduleIsMissing, runCheckCommand } from "../../src/checks/run-check-command.js";
import { installError, setupMayFail } from "../../src/coder/check-commands.js";
import { goesOnNote } from "../../src/coder/runner-stand-ins.js";
import type { CheckCommandSpec, CoderResult } from "../../src/coder/types.js";
import { uncheckedReason } from "../../src/coder/unchecked.js";
import { createExec } from "../../src/exec/create-exec.js";
import { renderChecksStatus } from "../../src/report/render-checks-status.js";
import { describeWith } from "../helpers/needs.js";

/** A runner that is not there, as the shell says it: the same exit whatever the host has installed. */
const MISSING_UV = "echo 'bash: line 1: uv: command not found' >&2; exit 127";

describeWith("pytest", "a Python project runner's stand-in (real processes, the host's pytest)", () => {
  let dir: string;
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "stand-in-"));
    await mkdir(path.join(dir, "tests"));
    await writeFile(path.join(dir, "tests", "test_one.py"), "def test_one():\n    assert 1 + 1 == 3\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const run = (command: string, fallback: object) =>
    runCheckCommand(exec, { kind: "test", command, cwd: dir, timeoutMs: 60_000, fallback: fallback as never });

  it("runs pytest in place of a runner that is not there; the failing test is in its report", async () => {
    const r = await run(MISSING_UV, { runner: "uv", command: "python3 -m pytest tests", module: "pytest" });
    expect(r).toMatchObject({
      ok: false,
      command: "python3 -m pytest tests",
      standIn: { for: MISSING_UV, runner: "uv", why: "`uv` is not installed here (exit 127)" },
    });
    expect(r.environmentError).toBeUndefined();
    expect(r.output).toContain("test_one");
  });

  it("says the runner is missing when the sandbox's Python lacks the stand-in's module", async () => {
    const r = await run(MISSING_UV, {
      runner: "uv",
      command: "python3 -m no_such_linter_x",
      module: "no_such_linter_x",
    });
    expect(r).toMatchObject({ ok: false, environmentError: true });
    expect(r.runnerMissing).toContain("the sandbox's Python cannot run `no_such_linter_x` in its place");
    expect(r.standIn).toBeUndefined();
  });

  it("runs the stand-in straight away: the runner's command and the stand-in, no probe between them", async () => {
    const ran: string[] = [];
    const recording = {
      run: (req: Parameters<typeof exec.run>[0]) => (ran.push(req.label ?? req.command), exec.run(req)),
    };
    const r = await runCheckCommand(recording, {
      kind: "test",
      command: MISSING_UV,
      cwd: dir,
      timeoutMs: 60_000,
      fallback: { runner: "uv", command: "python3 -m pytest tests", module: "pytest" },
    });
    expect(r.standIn).toBeDefined();
    expect(ran).toEqual([MISSING_UV, "python3 -m pytest tests"]);
  });

  it("says the runner is missing when nothing stands in", async () => {
    const r = await run(MISSING_UV, { runner: "uv" });
    expect(r.runnerMissing).toBe("`uv` is not installed here (exit 127), and nothing in the sandbox stands in for it");
  });

  it("leaves a command that ran and failed as it is", async () => {
    const r = await run("echo 'E   assert 1 == 2'; exit 1", {
      runner: "uv",
      command: "python3 -m pytest tests",
      module: "pytest",
    });
    expect(r).toMatchObject({ ok: false, exitCode: 1 });
    expect(r.standIn).toBeUndefined();
    expect(r.runnerMissing).toBeUndefined();
  });
});

describe("a stand-in's module that is not installed", () => {
  it("is Python's own one-line answer, not a test run that failed on an import", () => {
    expect(moduleIsMissing("/usr/bin/python3: No module named pytest\n", "pytest")).toBe(true);
    expect(moduleIsMissing("python3.12: No module named flake8", "flake8")).toBe(true);
    expect(
      moduleIsMissing(
        "/usr/bin/python3: No module named x.__main__; 'x' is a package and cannot be directly executed",
        "x",
      ),
    ).toBe(true);
    expect(moduleIsMissing("/usr/bin/python3: No module named pytest_cov", "pytest")).toBe(false);
    expect(moduleIsMissing("E   ModuleNotFoundError: No module named 'pytest'", "pytest")).toBe(false);
    expect(moduleIsMissing("collected 3 items\n/usr/bin/python3: No module named pytest", "pytest")).toBe(false);
  });
});

describe("a failed runner setup goes on only to a stand-in", () => {
  const install: CheckCommandSpec = { kind: "setup", command: "pip install hatch", installsRunners: ["hatch"] };
  const sync: CheckCommandSpec = { kind: "setup", command: "uv sync", fallback: { runner: "uv" } };
  const test: CheckCommandSpec = {
    kind: "test",
    command: "hatch run cov",
    fallback: { runner: "hatch", command: "python3 -m pytest tests", module: "pytest" },
  };
  const uvTest: CheckCommandSpec = {
    kind: "test",
    command: "uv run pytest",
    fallback: { runner: "uv", command: "python3 -m pytest", module: "pytest" },
  };

  it("an install of a runner a check stands in for goes on; one nobody stands in for stops", () => {
    expect(setupMayFail(install, {}, [install, test])).toBe(true);
    expect(setupMayFail(install, {}, [install, { ...test, fallback: { runner: "hatch" } }])).toBe(false);
    expect(setupMayFail({ kind: "setup", command: "npm ci" }, {}, [test])).toBe(false);
  });

  it("a setup that runs a missing runner goes on only when it was missing (not when it ran and failed)", () => {
    expect(setupMayFail(sync, { runnerMissing: "`uv` is not installed here" }, [sync, uvTest])).toBe(true);
    expect(setupMayFail(sync, {}, [sync, uvTest])).toBe(false);
  });

  it("names the installer's error in the record", () => {
    const output =
      "Collecting hatch\nERROR: Could not find a version that satisfies the requirement hatch\nERROR: No matching distribution found for hatch\n";
    expect(installError(output)).toBe("ERROR: No matching distribution found for hatch");
    expect(
      goesOnNote(
        install,
        { kind: "setup", ok: false, command: "pip install hatch", output, locations: [] },
        [install, test],
        [],
      ),
    ).toBe("`hatch` could not be installed: ERROR: No matching distribution found for hatch");
  });

  it("a lint with nothing to stand in names the install's error once, then what could not stand in", () => {
    const lint: CheckCommandSpec = {
      kind: "lint",
      command: "hatch run flake8",
      fallback: { runner: "hatch", command: "python3 -m flake8", module: "flake8" },
    };
    const records = [
      { ...install, status: "could-not-run" as const, note: "`hatch` could not be installed: ERROR: x" },
    ];
    const report = {
      kind: "lint" as const,
      ok: false,
      command: "hatch run flake8",
      output: "",
      locations: [],
      runnerMissing:
        "`hatch` is not installed here (exit 127), and the sandbox's Python cannot run `flake8` in its place (…)",
    };
    expect(goesOnNote(lint, report, [install, lint, test], records)).toBe(
      "`hatch` could not be installed: ERROR: x; the sandbox's Python cannot run `flake8` in its place (…)",
    );
  });
});

describe("what the status says of a stand-in", () => {
  const base = {
    reflections: 0,
    tokens: { prompt: 0, completion: 0 },
    costUsd: 0,
    explanation: "",
    outcome: "changed" as const,
    editedFiles: [{ path: "calc.py", added: 1, removed: 1 }],
    commit: null,
  };

  it("says what ran instead, why, and that the dependencies are the host's", () => {
    const result = {
      ...base,
      checkRuns: [
        {
          kind: "setup" as const,
          command: "command -v uv || pip install --user uv",
          installsRunners: ["uv"],
          status: "could-not-run" as const,
          note: "`uv` could not be installed: ERROR: no index",
        },
        {
          kind: "test" as const,
          command: 'PATH="$HOME/.local/bin:$PATH" uv run --group dev pytest tests/',
          fallback: { runner: "uv", command: "python3 -m pytest tests/", module: "pytest" },
          status: "passed" as const,
          ranInstead: { command: "python3 -m pytest tests/", why: "`uv` could not be installed: ERROR: no index" },
        },
      ],
    } as unknown as CoderResult;
    const { headline } = renderChecksStatus(result, undefined, true);
    expect(headline).toContain(
      "ℹ️ `uv run --group dev pytest tests/` could not run here (`uv` could not be installed: ERROR: no index); ran `python3 -m pytest tests/` with the sandbox's Python instead — dependencies come from the host, not the project's lock file.",
    );
    expect(headline).not.toContain("No tests ran");
    // The failed install is said once, on the stand-in's line, not again in the list of checks.
    expect(headline).toContain("🧪 Checks: ✅ `uv run --group dev pytest tests/` (as `python3 -m pytest tests/`)\n");
    expect(headline).not.toContain("pip install");
  });

  it("a change no command could check is unchecked", () => {
    const result = {
      ...base,
      checkRuns: [
        { kind: "lint", command: "hatch run flake8", status: "could-not-run", note: "`hatch` is not installed here" },
        { kind: "test", command: "tox", status: "could-not-run", note: "`tox` is not installed here" },
      ],
    } as unknown as CoderResult;
    expect(uncheckedReason(result)).toBe(
      "none of the repository's lint and test commands could run here (`hatch run flake8`: `hatch` is not installed here)",
    );
    expect(renderChecksStatus(result, undefined, true).headline).toContain(
      "`tox` could not run here (`tox` is not installed here)",
    );
  });
});
