import { describe, expect, it } from "@jest/globals";
import { runCoder } from "../../src/coder/run-coder.js";
import { NO_EDITS_TEXT } from "../../src/coder/prompts/shared-text.js";
import { block } from "./helpers/fake-engine.js";
import { syntaxCheck } from "../../src/checks/syntax-check.js";
import { coderOptions, fakeDeps, lastUser, type FakeDeps } from "./helpers/fake-deps.js";
import type { RepoMapRequest } from "../../src/coder/coder-deps.js";
import { baselineOf } from "../../src/checks/compare-baseline.js";
import type { CheckReport } from "../../src/checks/types.js";
import type { CheckCommandSpec } from "../../src/coder/types.js";

const FETCH =
  "export async function fetchJson(url: string) {\n  const res = await fetch(url);\n  return res.json();\n}\n";
const UTIL = "export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\n";
const files = { "src/fetch.ts": FETCH, "src/util.ts": UTIL, "README.md": "# demo\n" };

const goodEdit = `I will retry the request.\n\n${block("src/fetch.ts", "  const res = await fetch(url);\n", "  const res = await retry(() => fetch(url));\n")}`;
const badEdit = `Trying.\n\n${block("src/fetch.ts", "  const nope = 1;\n", "  const nope = 2;\n")}`;

describe("runCoder", () => {
  it("applies a clean edit and commits once, only the edited file, with trailers", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit] });
    deps.workspace.files.set("notes.txt", "dirty but not ours\n"); // a dirty file the run did not edit
    const result = await runCoder(
      coderOptions({ coAuthor: { name: "Ann", email: "ann@example.com" }, trailers: ["Aider-Bot-Run: 42"] }),
      deps,
    );
    expect(result.outcome).toBe("changed");
    expect(deps.commits).toHaveLength(1);
    expect(deps.commits[0]!.paths).toEqual(["src/fetch.ts"]);
    expect(deps.commits[0]!.subject).toBe("feat: add retry logic to fetch client");
    expect(deps.commits[0]!.body).toContain("add retry logic to fetch client");
    expect(deps.commits[0]!.trailers).toEqual(["Co-authored-by: Ann <ann@example.com>", "Aider-Bot-Run: 42"]);
    expect(deps.workspace.files.get("src/fetch.ts")).toContain("retry(() => fetch(url))");
    expect(result.explanation).toBe("I will retry the request.");
    expect(result.reflections).toBe(0);
    expect(result.tokens).toEqual({ prompt: 100, completion: 20 });
    if (result.outcome === "changed")
      expect(result.commit).toEqual({ sha: "abc1234", subject: "feat: add retry logic to fetch client" });
  });

  it("uses the generated commit message when there is one, and skips the commit with commit: false", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit], commitMessage: '"fix: retry flaky fetches"' });
    await runCoder(coderOptions(), deps);
    expect(deps.commits[0]!.subject).toBe("fix: retry flaky fetches");

    const noCommit = fakeDeps({ files, answers: [goodEdit] });
    const result = await runCoder(coderOptions({ commit: false }), noCommit);
    expect(noCommit.commits).toHaveLength(0);
    expect(result.outcome === "changed" && result.commit).toBeNull();
    expect(result.outcome === "changed" && result.editedFiles.map((f) => f.path)).toEqual(["src/fetch.ts"]);
  });

  it("sends the engine's reflection as the next user message after a failed edit, then succeeds", async () => {
    const deps = fakeDeps({ files, answers: [badEdit, goodEdit] });
    const result = await runCoder(coderOptions(), deps);
    expect(result.outcome).toBe("changed");
    expect(result.reflections).toBe(1);
    expect(lastUser(deps.requests[1]!)).toBe("ENGINE REFLECTION:\nSEARCH not found in src/fetch.ts");
    // The failed exchange stays in the history so the model sees what it sent.
    expect(deps.requests[1]!.messages.some((m) => m.role === "assistant" && m.content === badEdit)).toBe(true);
    expect(deps.commits).toHaveLength(1);
  });

  it("reflects a syntax error found by the built-in check", async () => {
    const broken = block("src/fetch.ts", "  return res.json();\n", "  return res.json() SYNTAX_ERROR\n");
    const deps = fakeDeps({
      files,
      answers: [broken, block("src/fetch.ts", "  return res.json() SYNTAX_ERROR\n", "  return res.json();\n")],
    });
    const result = await runCoder(coderOptions(), deps);
    expect(lastUser(deps.requests[1]!)).toBe("CHECK FAILED (syntax) \nsrc/fetch.ts:1: unexpected token");
    expect(result.outcome).toBe("no-changes"); // the fix restored the original content: nothing to commit
    expect(deps.commits).toHaveLength(0);
  });

  it("does not blame the edit for a syntax error the file already had (a grammar that misreads valid code)", async () => {
    // tree-sitter's C grammar cannot parse an `else if` inside `#if … #endif`: valid C it reports as an error on line 6.
    const c = [
      "int f(int a, int b, char *p) {",
      "    if (a) {",
      "        a = 1;",
      "    }",
      "#if X",
      "    else if (*p && b) {",
      "        b = 2;",
      "    }",
      "#endif",
      "    return a + b;",
      "}",
      "",
    ].join("\n");
    const deps = fakeDeps({
      files: { "f.c": c },
      answers: [block("f.c", "    return a + b;\n", "    return a - b;\n")],
    });
    deps.syntaxCheck = syntaxCheck;
    expect((await syntaxCheck("f.c", c))?.ok).toBe(false);
    const result = await runCoder(coderOptions({ files: ["f.c"] }), deps);
    expect(result.outcome).toBe("changed");
    expect(deps.requests).toHaveLength(1);
    expect(deps.commits).toHaveLength(1);
  });

  it("still reflects a syntax error the edit brought into a file that already had one", async () => {
    const c = "int f(int a) {\n#if X\n    else if (*p) {}\n#endif\n    return a;\n}\n";
    const deps = fakeDeps({
      files: { "f.c": c },
      answers: [
        block("f.c", "    return a;\n", "    return a +;\n"),
        block("f.c", "    return a +;\n", "    return a + 1;\n"),
      ],
    });
    deps.syntaxCheck = syntaxCheck;
    await runCoder(coderOptions({ files: ["f.c"] }), deps);
    expect(deps.requests).toHaveLength(2);
    expect(lastUser(deps.requests[1]!)).toContain("f.c:5");
    expect(lastUser(deps.requests[1]!)).not.toContain("f.c:3");
  });

  it("runs lint on the edited files and reflects a lint failure", async () => {
    const deps = fakeDeps({
      files,
      answers: [goodEdit, block("src/util.ts", UTIL, UTIL.replace("(r)", "(resolve)").replace("r, ms", "resolve, ms"))],
      check: (req, nth) =>
        req.kind === "lint" && nth === 1 ? { ok: false, output: "src/fetch.ts:2 no-undef retry" } : {},
    });
    const result = await runCoder(
      coderOptions({ lintCommands: ["eslint"], files: ["src/fetch.ts", "src/util.ts"] }),
      deps,
    );
    expect(deps.checkRuns[0]).toMatchObject({ kind: "lint", command: "eslint", files: ["src/fetch.ts"] });
    expect(lastUser(deps.requests[1]!)).toContain("no-undef retry");
    expect(result.outcome).toBe("changed");
    // Lint covers every file this run edited, not only the last round's.
    expect(deps.checkRuns[1]!.files).toEqual(["src/fetch.ts", "src/util.ts"]);
    expect(deps.commits[0]!.paths).toEqual(["src/fetch.ts", "src/util.ts"]);
  });

  it("runs setup once, reflects a failing test run, and commits when the tests go green", async () => {
    const fix = block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`);
    const deps = fakeDeps({
      files,
      answers: [goodEdit, fix],
      check: (req, nth) => (req.kind === "test" && nth === 1 ? { ok: false, output: "FAIL retry is not defined" } : {}),
    });
    const options = coderOptions({
      autoTest: true,
      testCommand: "npm test",
      setupCommands: ["npm ci"],
      files: ["src/fetch.ts", "src/util.ts"],
    });
    const result = await runCoder(options, deps);
    expect(lastUser(deps.requests[1]!)).toBe("CHECK FAILED (test) npm test\nFAIL retry is not defined");
    expect(result.outcome).toBe("changed");
    expect(deps.checkRuns.map((r) => `${r.kind}:${r.command}`)).toEqual([
      "setup:npm ci",
      "test:npm test",
      "test:npm test",
    ]);
    expect(deps.commits).toHaveLength(1);
  });

  it("a test failure the base has too (the same error, no test named) is not reflected: the run commits and records it as pre-existing", async () => {
    const goMod =
      "go: go.mod file not found in current directory or any parent directory\nmake: *** [Makefile:4: test] Error 1";
    const deps: FakeDeps = {
      ...fakeDeps({
        files,
        answers: [goodEdit],
        check: (req) => (req.kind === "test" ? { ok: false, exitCode: 2, output: goMod } : {}),
      }),
      baseline: {
        lookup: async (spec) =>
          spec.kind === "test" ? baselineOf({ ok: false, exitCode: 2, output: goMod }, ["/base"]) : null,
        roots: ["/base"],
      },
    };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "make test", files: ["src/fetch.ts", "src/util.ts"] }),
      deps,
    );
    expect(deps.requests).toHaveLength(1); // no reflection
    expect(result.outcome).toBe("changed");
    expect(result.reflections).toBe(0);
    expect(result.checkRuns).toEqual([
      expect.objectContaining({
        kind: "test",
        command: "make test",
        status: "pre-existing",
        onBase: "go: go.mod file not found in current directory or any parent directory",
      }),
    ]);
  });

  it("a program the command names that is not installed here is not reflected and not compared with the base", async () => {
    const looked: string[] = [];
    const deps: FakeDeps = {
      ...fakeDeps({
        files,
        answers: [goodEdit],
        check: (req) =>
          req.kind === "test"
            ? {
                ok: false,
                exitCode: 2,
                environmentError: true,
                missingTool: "clang",
                output: "The test command could not run: `clang`, which it names, is not installed here (exit 2).",
              }
            : {},
      }),
      baseline: {
        lookup: async (spec) => (looked.push(spec.command), null),
        roots: [],
      },
    };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "CC=clang make -C tests", files: ["src/fetch.ts", "src/util.ts"] }),
      deps,
    );
    expect(deps.requests).toHaveLength(1); // no reflection
    expect(looked).toEqual([]); // the base's run of it is not waited for
    expect(result.checkRuns).toEqual([
      expect.objectContaining({
        command: "CC=clang make -C tests",
        status: "tool-missing",
        note: "`clang` is not installed here",
      }),
    ]);
  });

  it("holds the base's run while its own setup, lint and test commands run, and lets it go once they are over", async () => {
    const events: string[] = [];
    const base = fakeDeps({ files, answers: [goodEdit] });
    const deps: FakeDeps = {
      ...base,
      runCheck: async (req) => (events.push(`run ${req.kind}`), base.runCheck(req)),
      baseline: {
        lookup: async () => null,
        roots: [],
        hold: () => (events.push("hold"), () => void events.push("release")),
      },
    };
    const result = await runCoder(
      coderOptions({
        lintCommands: ["eslint"],
        autoTest: true,
        testCommand: "make test",
        setupCommands: ["npm ci"],
        files: ["src/fetch.ts", "src/util.ts"],
      }),
      deps,
    );
    expect(result.outcome).toBe("changed");
    expect(events).toEqual(["hold", "run setup", "run lint", "run test", "release"]);
  });

  /** A run with one lint and one test command, over both files. */
  const lintThenTest = () =>
    coderOptions({
      lintCommands: ["eslint"],
      autoTest: true,
      testCommand: "make test",
      files: ["src/fetch.ts", "src/util.ts"],
    });

  /**
   * A base whose lint result comes once the change's test has started, or after 20 turns of the event loop if it never
   * does (so the run before the change waited for it, then ran the test): no timing, only the order of events.
   */
  const lateBase = (events: string[], lintOnBase: () => ReturnType<typeof baselineOf> | null) => {
    let testStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (testStarted = resolve));
    const ticks = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    return {
      testStarted: () => testStarted(),
      baseline: {
        lookup: async (spec: CheckCommandSpec) => {
          if (spec.kind !== "lint") return null;
          await Promise.race([started, ticks()]);
          events.push("base lint known");
          return lintOnBase();
        },
        roots: [],
      },
    };
  };
  const lintOut = "src/fetch.ts:1:1 error no-var";

  it("runs the next check while a failed lint waits for the base's result, and keeps it when the failure is the base's too", async () => {
    const events: string[] = [];
    const base = fakeDeps({
      files,
      answers: [goodEdit],
      check: (req) => (req.kind === "lint" ? { ok: false, exitCode: 1, output: lintOut } : {}),
    });
    const late = lateBase(events, () => baselineOf({ ok: false, exitCode: 1, output: lintOut }, []));
    const deps: FakeDeps = {
      ...base,
      runCheck: async (req) => {
        events.push(`run ${req.kind}`);
        if (req.kind === "test") late.testStarted();
        const r = await base.runCheck(req);
        events.push(`${req.kind} done`);
        return r;
      },
      baseline: late.baseline,
    };
    const result = await runCoder(lintThenTest(), deps);
    expect(events.slice(0, 3)).toEqual(["run lint", "lint done", "run test"]);
    expect(events.indexOf("run test")).toBeLessThan(events.indexOf("base lint known"));
    expect(events.filter((e) => e === "run test")).toHaveLength(1);
    expect(result.outcome).toBe("changed");
    expect(result.checkRuns?.map((r) => `${r.kind}:${r.status}`)).toEqual(["lint:pre-existing", "test:passed"]);
  });

  it("stops the check run ahead when the failed lint is the change's own, and reflects the lint as before", async () => {
    const events: string[] = [];
    const signals: (AbortSignal | undefined)[] = [];
    const base = fakeDeps({
      files,
      answers: [goodEdit, block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`)],
      check: (req, nth) => (req.kind === "lint" && nth === 1 ? { ok: false, exitCode: 1, output: lintOut } : {}),
    });
    const late = lateBase(events, () => null);
    const deps: FakeDeps = {
      ...base,
      runCheck: async (req) => {
        events.push(`run ${req.kind}`);
        if (req.kind === "test") {
          signals.push(req.signal);
          late.testStarted();
          // In the first round a test that runs until it is stopped; in the second, one that ends at once.
          if (base.requests.length === 1)
            await new Promise<void>((resolve) => req.signal?.addEventListener("abort", () => resolve()));
        }
        return base.runCheck(req);
      },
      baseline: late.baseline,
    };
    const result = await runCoder(lintThenTest(), deps);
    expect(signals[0]?.aborted).toBe(true);
    expect(lastUser(deps.requests[1]!)).toBe(`CHECK FAILED (lint) eslint\n${lintOut}`);
    expect(result.reflections).toBe(1);
    expect(result.outcome).toBe("changed");
  });

  it("starts nothing ahead when the base's result is known at once", async () => {
    const base = fakeDeps({
      files,
      answers: [goodEdit, block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`)],
      check: (req, nth) => (req.kind === "lint" && nth === 1 ? { ok: false, exitCode: 1, output: lintOut } : {}),
    });
    const deps: FakeDeps = { ...base, baseline: { lookup: async () => null, roots: [] } };
    await runCoder(lintThenTest(), deps);
    expect(deps.checkRuns.map((r) => r.kind)).toEqual(["lint", "lint", "test"]);
  });

  it("what the base run saves: a check failing on the base too costs no reflection (3 → 0, 4 model requests → 1)", async () => {
    const goMod = "go: go.mod file not found in current directory or any parent directory";
    const runWith = async (withBase: boolean) => {
      const deps: FakeDeps = {
        ...fakeDeps({
          files,
          answers: [goodEdit, goodEdit, goodEdit, goodEdit],
          check: (req) => (req.kind === "test" ? { ok: false, exitCode: 1, output: goMod } : {}),
        }),
        ...(withBase
          ? { baseline: { lookup: async () => baselineOf({ ok: false, exitCode: 1, output: goMod }, []), roots: [] } }
          : {}),
      };
      const result = await runCoder(
        coderOptions({
          autoTest: true,
          testCommand: "make test",
          maxReflections: 3,
          files: ["src/fetch.ts", "src/util.ts"],
        }),
        deps,
      );
      return { reflections: result.reflections, requests: deps.requests.length };
    };
    expect(await runWith(false)).toEqual({ reflections: 3, requests: 4 });
    expect(await runWith(true)).toEqual({ reflections: 0, requests: 1 });
  });

  it("new failing tests are reflected; those the base had too are named as pre-existing in the reflection", async () => {
    const fix = block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`);
    const headOut = "--- FAIL: TestRetry (0.00s)\n--- FAIL: TestNetwork (0.01s)\nFAIL";
    const reports: CheckReport[] = [];
    const deps: FakeDeps = {
      ...fakeDeps({
        files,
        answers: [goodEdit, fix],
        check: (req, nth) =>
          req.kind === "test"
            ? { ok: false, exitCode: 1, output: nth === 1 ? headOut : "--- FAIL: TestNetwork (0.02s)\nFAIL" }
            : {},
      }),
      baseline: {
        lookup: async () => baselineOf({ ok: false, exitCode: 1, output: "--- FAIL: TestNetwork (0.03s)\nFAIL" }, []),
        roots: [],
      },
      renderCheckReflection: (report) => (reports.push(report), `CHECK FAILED ${report.output}`),
    };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "go test ./...", files: ["src/fetch.ts", "src/util.ts"] }),
      deps,
    );
    expect(reports).toHaveLength(1);
    expect(reports[0]!.preExistingTests).toEqual(["TestNetwork"]);
    // Round two: only TestNetwork fails, as on the base: not reflected again, the change is committed.
    expect(result.outcome).toBe("changed");
    expect(result.reflections).toBe(1);
    expect(result.checkRuns?.[0]).toMatchObject({ status: "pre-existing", testsRan: true });
  });

  it("a failing setup command comes back as setup, and says the base fails the same way", async () => {
    const deps: FakeDeps = {
      ...fakeDeps({
        files,
        answers: [goodEdit],
        check: (req) =>
          req.kind === "setup"
            ? { ok: false, exitCode: 127, environmentError: true, output: "sh: 1: uv: not found" }
            : {},
      }),
      baseline: {
        lookup: async (spec) =>
          spec.kind === "setup" ? baselineOf({ ok: false, exitCode: 127, output: "sh: 1: uv: not found" }, []) : null,
        roots: [],
      },
    };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "pytest", setupCommands: ["uv sync"], files: ["src/fetch.ts"] }),
      deps,
    );
    expect(result.outcome).toBe("checks-failed");
    if (result.outcome === "checks-failed")
      expect(result.report).toMatchObject({ kind: "setup", onBase: "sh: 1: uv: not found" });
    expect(result.checkRuns?.[0]).toMatchObject({
      kind: "setup",
      status: "tool-missing",
      onBase: "sh: 1: uv: not found",
    });
  });

  it("runs no setup, lint or test command when the sandbox cannot run, still commits, and says checks were skipped and why", async () => {
    const deps: FakeDeps = {
      ...fakeDeps({ files, answers: [goodEdit] }),
      sandboxMode: async () => "unavailable: bubblewrap (bwrap) is not installed",
    };
    const options = coderOptions({
      autoTest: true,
      testCommand: "npm test",
      lintCommands: ["eslint"],
      setupCommands: ["npm ci"],
      files: ["src/fetch.ts", "src/util.ts"],
    });
    const result = await runCoder(options, deps);
    expect(deps.checkRuns).toEqual([]);
    expect(result.outcome).toBe("changed");
    expect(deps.commits).toHaveLength(1);
    expect(result.sandbox).toBe("unavailable: bubblewrap (bwrap) is not installed");
    expect(result.checksSkipped).toBe("the sandbox cannot run on the app's host (bubblewrap (bwrap) is not installed)");
  });

  it("runs the commands and records the mode when they run in the sandbox", async () => {
    const deps: FakeDeps = { ...fakeDeps({ files, answers: [goodEdit] }), sandboxMode: async () => "bubblewrap" };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "npm test", files: ["src/fetch.ts", "src/util.ts"] }),
      deps,
    );
    expect(deps.checkRuns.map((r) => r.command)).toEqual(["npm test"]);
    expect(result).toMatchObject({ outcome: "changed", sandbox: "bubblewrap" });
    expect(result.checksSkipped).toBeUndefined();
  });

  it("records the sandbox as it ended up: a container's image chosen once the files were written", async () => {
    // The first round starts while the checkout is written; the image is chosen from its files before any command.
    let chosen = false;
    const deps: FakeDeps = {
      ...fakeDeps({ files, answers: [goodEdit] }),
      sandboxMode: async () =>
        chosen
          ? "container (node:20, from .devcontainer/devcontainer.json)"
          : "container (image not chosen yet; default buildpack-deps:bookworm)",
      runCheck: async (req) => {
        chosen = true;
        return {
          ok: true,
          kind: req.kind,
          command: req.command,
          exitCode: 0,
          output: "",
          locations: [],
          truncated: false,
        };
      },
    };
    const result = await runCoder(
      coderOptions({ autoTest: true, testCommand: "npm test", files: ["src/fetch.ts"] }),
      deps,
    );
    expect(result).toMatchObject({
      outcome: "changed",
      sandbox: "container (node:20, from .devcontainer/devcontainer.json)",
    });
  });

  it("the transcript records what the network policy refused, even when every check passed", async () => {
    const notes: string[] = [];
    const deps: FakeDeps = {
      ...fakeDeps({ files, answers: [goodEdit] }),
      sandboxMode: async () => "bubblewrap",
      egressReport: () => ({
        policy: "registries",
        blocked: [{ host: "evil.example.net", kind: "not-allowed", reason: "not on the allowlist", connections: 3 }],
        repositoryMayAdd: true,
        added: [],
      }),
      onTranscript: (e) => void (e.kind === "note" && notes.push(e.text)),
    };
    const result = await runCoder(coderOptions({ autoTest: true, testCommand: "npm test" }), deps);
    expect(result.outcome).toBe("changed");
    expect(notes).toEqual([
      "the sandbox's network policy (registries) refused: evil.example.net (3 connections: not on the allowlist)",
    ]);
  });

  it("stops with checks-failed, the last report and no commit when reflections run out", async () => {
    const answers = [0, 1, 2].map((i) =>
      block("src/fetch.ts", i === 0 ? "  return res.json();\n" : `  return ${i - 1};\n`, `  return ${i};\n`),
    );
    const deps = fakeDeps({ files, answers, check: (_req, nth) => ({ ok: false, output: `test failure #${nth}` }) });
    const result = await runCoder(coderOptions({ autoTest: true, testCommand: "npm test", maxReflections: 2 }), deps);
    expect(deps.requests).toHaveLength(3);
    expect(result.outcome).toBe("checks-failed");
    if (result.outcome !== "checks-failed") return;
    expect(result.report.output).toBe("test failure #3");
    expect(result.editedFiles.map((f) => f.path)).toEqual(["src/fetch.ts"]);
    expect(result.reflections).toBe(2);
    expect(deps.commits).toHaveLength(0);
  });

  it("reports edit-failed with the failures when edits never apply", async () => {
    const deps = fakeDeps({ files, answers: [badEdit, badEdit] });
    const result = await runCoder(coderOptions({ maxReflections: 1 }), deps);
    expect(result.outcome).toBe("edit-failed");
    expect(result.outcome === "edit-failed" && result.failures.map((f) => f.reason)).toEqual(["no-match"]);
    expect(deps.commits).toHaveLength(0);
  });

  it("adds files the reply names, asks again, and still applies the same reply's edits to chat files", async () => {
    const first = `${goodEdit}\n\nI also need to see src/util.ts to add the helper.\n\n${block("src/util.ts", "guess\n", "x\n")}`;
    const second = block("src/util.ts", UTIL, `${UTIL}export const retry = <T>(f: () => T) => f();\n`);
    const deps = fakeDeps({ files, answers: [first, second] });
    const result = await runCoder(coderOptions(), deps);
    // The chat-file edit of the first reply was applied before asking again (docs/behaviour.md#aider-bugs-we-avoid (#22)).
    expect(deps.workspace.writes[0]!.has("src/fetch.ts")).toBe(true);
    expect(deps.workspace.writes[0]!.has("src/util.ts")).toBe(false);
    const again = lastUser(deps.requests[1]!);
    expect(again).toContain("src/util.ts");
    expect(again).toContain("were NOT applied");
    expect(again).not.toContain("ENGINE REFLECTION"); // the blind edit to util.ts is not reported as a failure
    expect(deps.requests[1]!.messages.some((m) => m.content.includes(`src/util.ts\n\`\`\`\n${UTIL}\`\`\``))).toBe(true);
    expect(result.outcome).toBe("changed");
    expect(deps.commits[0]!.paths).toEqual(["src/fetch.ts", "src/util.ts"]);
  });

  it("without chat files and with a map, asks which files are needed, adds them and asks for the edits", async () => {
    const deps = fakeDeps({
      files,
      answers: ["You will need to change:\nsrc/fetch.ts\n", goodEdit],
      repoMap: "src/fetch.ts:\n  fetchJson",
    });
    const result = await runCoder(coderOptions({ files: [] }), deps);
    const first = deps.requests[0]!.messages;
    expect(first.some((m) => m.content.includes("one per line"))).toBe(true);
    expect(first.some((m) => m.content.includes("fetchJson"))).toBe(true);
    expect(deps.requests[1]!.messages.some((m) => m.content.includes(FETCH))).toBe(true);
    expect(result.outcome).toBe("changed");
  });

  it("the map is steered by every word of the request and the files it names, as in Aider", async () => {
    const deps = fakeDeps({ files, answers: ["Nothing to change.", "Still nothing."] });
    const asked: RepoMapRequest[] = [];
    const repoMap = async (req: RepoMapRequest) => {
      asked.push(req);
      return { text: "src/fetch.ts:\n  fetchJson", rankedFiles: [] };
    };
    await runCoder(
      coderOptions({ files: [], message: "make Fetcher retry like fetchJson, see the util helpers and README.md" }),
      { ...deps, repoMap },
    );
    expect(asked[0]!.mentionedIdents).toEqual(
      expect.arrayContaining(["make", "Fetcher", "retry", "fetchJson", "util", "helpers", "README"]),
    );
    expect(asked[0]!.mentionedIdents).not.toContain("see");
    // README.md is named (and added); "util" is shorter than a stem may be, so src/util.ts is not.
    expect(asked[0]!.mentionedFiles).toEqual(["README.md"]);
    expect(asked[0]!.chatFiles).toEqual(["README.md"]);
  });

  it("a file named only inside the code of an edit is not added: one request, not a round spent on the file", async () => {
    // The REPLACE code names src/util.ts; the prose names no file. Aider adds util.ts and asks again.
    const edit = block(
      "src/fetch.ts",
      "  const res = await fetch(url);\n",
      "  // back off first, with the helper from src/util.ts\n  await sleep(1);\n  const res = await fetch(url);\n",
    );
    const deps = fakeDeps({ files, answers: [`Wait before fetching.\n\n${edit}`] });
    const result = await runCoder(coderOptions(), deps);
    expect(result.outcome).toBe("changed");
    expect(result.filesAddedOnRequest).toBeUndefined();
    expect(deps.requests).toHaveLength(1);
    expect(deps.workspace.files.get("src/fetch.ts")).toContain("await sleep(1);");
  });

  it("says which files it added at the model's request; with no call left, a named file is not added", async () => {
    const deps = fakeDeps({
      files,
      answers: ["You will need to change:\nsrc/fetch.ts\n", goodEdit],
      repoMap: "src/fetch.ts:\n  fetchJson",
    });
    const result = await runCoder(coderOptions({ files: [] }), deps);
    expect(result.filesAddedOnRequest).toEqual(["src/fetch.ts"]);

    const last = fakeDeps({
      files,
      answers: ["You will need to change:\nsrc/fetch.ts\n"],
      repoMap: "src/fetch.ts:\n  fetchJson",
    });
    const none = await runCoder(coderOptions({ files: [], maxReflections: 0 }), last);
    expect(none.filesAddedOnRequest).toBeUndefined();
    expect(last.requests).toHaveLength(1);
  });

  it("the map request carries the request's and the issue's text and the context's hint files; files the issue names are hints, not chat files", async () => {
    const deps = fakeDeps({ files, answers: ["Nothing to change.", "Still nothing."] });
    const asked: RepoMapRequest[] = [];
    const repoMap = async (req: RepoMapRequest) => {
      asked.push(req);
      return { text: "", rankedFiles: [] };
    };
    const untrustedContext = [{ label: "Issue #7", text: "Uploads fail; the helper in src/util.ts sleeps too little" }];
    await runCoder(
      coderOptions({ files: [], message: "make uploads retry", untrustedContext, hintFiles: ["README.md"] }),
      { ...deps, repoMap },
    );
    expect(asked[0]!.requestText).toContain("make uploads retry");
    expect(asked[0]!.requestText).toContain("sleeps too little");
    expect(asked[0]!.hintFiles).toEqual(["README.md", "src/util.ts"]);
    expect(asked[0]!.chatFiles).toEqual([]);
  });

  it("adds files the request names before the first call", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit] });
    await runCoder(coderOptions({ files: [], message: "add retry to src/fetch.ts" }), deps);
    expect(deps.requests[0]!.messages.some((m) => m.content.includes(FETCH))).toBe(true);
  });

  it("reflects an answer without edits once, then reports no-changes", async () => {
    const deps = fakeDeps({ files, answers: ["It already retries.", "Really, it already retries."] });
    const result = await runCoder(coderOptions(), deps);
    expect(lastUser(deps.requests[1]!)).toBe(NO_EDITS_TEXT);
    expect(deps.requests).toHaveLength(2);
    expect(result).toMatchObject({ outcome: "no-changes", answer: "Really, it already retries.", reflections: 1 });
  });

  it("askOnly makes one call with the ask prompt and returns the answer", async () => {
    const deps = fakeDeps({
      files,
      answers: [`It calls fetch once.\n\n${block("src/fetch.ts", "  return res.json();\n", "x\n")}`],
    });
    const result = await runCoder(coderOptions({ askOnly: true }), deps);
    expect(deps.requests).toHaveLength(1);
    expect(deps.requests[0]?.messages[0]?.content).not.toContain("SEARCH");
    expect(result.outcome).toBe("no-changes");
    expect(result.outcome === "no-changes" && result.answer).toContain("It calls fetch once.");
    expect(deps.workspace.writes).toHaveLength(0);
  });

  it("stops with budget-exceeded after the call that crosses the token budget", async () => {
    const deps = fakeDeps({ files, answers: [badEdit, goodEdit] });
    const result = await runCoder(coderOptions({ budget: { maxTokens: 100 } }), deps);
    expect(result.outcome).toBe("budget-exceeded");
    expect(deps.requests).toHaveLength(1);
    expect(deps.workspace.writes).toHaveLength(0);

    const costly = fakeDeps({ files, answers: [badEdit, badEdit] });
    const byCost = await runCoder(coderOptions({ budget: { maxUsd: 0.015 } }), costly);
    expect(byCost.outcome).toBe("budget-exceeded");
    expect(costly.requests).toHaveLength(2);
    expect(byCost.costUsd).toBeCloseTo(0.02);
  });

  it("stops with timed-out once the wall-clock budget has passed, and on an aborted signal", async () => {
    const deps = fakeDeps({ files, answers: [badEdit, goodEdit], msPerCall: 5000 });
    const result = await runCoder(coderOptions({ budget: { maxWallMs: 4000 } }), deps);
    expect(result.outcome).toBe("timed-out");
    expect(deps.requests).toHaveLength(1);

    const aborted = fakeDeps({ files, answers: [goodEdit] });
    const controller = new AbortController();
    controller.abort();
    const cancelled = await runCoder(coderOptions(), { ...aborted, signal: controller.signal });
    expect(cancelled.outcome).toBe("timed-out");
    expect(aborted.requests).toHaveLength(0);
  });

  it("maps an LLM error to llm-error, and a truncated answer to kind truncated without applying it", async () => {
    const err = Object.assign(new Error("401 bad key"), { kind: "auth" });
    const deps = fakeDeps({ files, answers: [err] });
    const result = await runCoder(coderOptions(), deps);
    expect(result).toMatchObject({ outcome: "llm-error", errorKind: "auth", message: "401 bad key" });

    const cut = fakeDeps({ files, answers: [{ text: goodEdit, finishReason: "length" }] });
    const truncated = await runCoder(coderOptions(), cut);
    expect(truncated).toMatchObject({ outcome: "llm-error", errorKind: "truncated" });
    expect(truncated.outcome === "llm-error" && truncated.message).toMatch(/output token limit/);
    expect(cut.workspace.writes).toHaveLength(0);
  });

  it("rethrows errors that are not LLM errors (programming errors)", async () => {
    const deps = fakeDeps({ files, answers: [new TypeError("boom")] });
    await expect(runCoder(coderOptions(), deps)).rejects.toThrow("boom");
  });

  it("reports a refused commit as checks-failed without losing the edited files", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit] });
    const result = await runCoder(coderOptions(), {
      ...deps,
      commit: async () => Promise.reject(new Error("pre-commit hook failed")),
    });
    expect(result.outcome).toBe("checks-failed");
    expect(result.outcome === "checks-failed" && result.report.output).toBe("pre-commit hook failed");
  });

  it("streams deltas to onProgress and collects suggested shell commands", async () => {
    const deps = fakeDeps({ files, answers: [`${goodEdit}\n\n\`\`\`bash\nnpm test\n\`\`\``] });
    const result = await runCoder(coderOptions(), deps);
    expect(deps.progress.some((p) => p.stage === "thinking" && p.delta?.includes("retry"))).toBe(true);
    expect(deps.progress.some((p) => p.stage === "committing")).toBe(true);
    expect(result.shell).toEqual(["npm test"]);
  });
});

describe("runCoder details", () => {
  it("passes chat files and read-only files (as protected) to the engine, and renders read-only files", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit] });
    const seen: unknown[] = [];
    const spy = {
      ...deps,
      parseAndApply: (...args: Parameters<typeof deps.parseAndApply>) => (
        seen.push(args[3]),
        deps.parseAndApply(...args)
      ),
    };
    await runCoder(coderOptions({ readFiles: ["README.md"], protectedPaths: [".github/workflows/**"] }), spy);
    expect(seen[0]).toMatchObject({
      chatFiles: ["src/fetch.ts"],
      protectedPaths: [".github/workflows/**", "README.md"],
    });
    expect(
      deps.requests[0]!.messages.some((m) => /reference only/i.test(m.content) && m.content.includes("# demo")),
    ).toBe(true);
  });

  it("caps the files added from one reply at 8 and never proposes the skipped ones again", async () => {
    const many: Record<string, string> = { ...files };
    for (let i = 0; i < 10; i++) many[`src/m${i}.ts`] = `export const m${i} = ${i};\n`;
    const names = Array.from({ length: 10 }, (_, i) => `src/m${i}.ts`).join("\n");
    const deps = fakeDeps({ files: many, answers: [names, names, "No edits needed."] });
    await runCoder(coderOptions({ maxReflections: 2 }), deps);
    const shown = (n: number) =>
      Array.from({ length: 10 }, (_, i) => i).filter((i) =>
        deps.requests[n]!.messages.some((m) => m.content.includes(`src/m${i}.ts\n\`\`\`\n`)),
      );
    expect(shown(1)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // the second reply names the same files: none is new, so no files-added turn is sent
    expect(lastUser(deps.requests[2]!)).toBe(NO_EDITS_TEXT);
  });

  it("keeps going without a map when building the map fails", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit], repoMap: "x" });
    const result = await runCoder(coderOptions(), {
      ...deps,
      repoMap: async () => Promise.reject(new Error("no wasm")),
    });
    expect(result.outcome).toBe("changed");
  });

  it("adds a file the model creates to the chat for later rounds", async () => {
    const create = block("src/retry.ts", "", "export const retry = 1;\n");
    const deps = fakeDeps({
      files,
      answers: [`${goodEdit}\n\n${create}`],
      check: () => ({ ok: false, output: "lint" }),
    });
    await runCoder(coderOptions({ lintCommands: ["eslint"], maxReflections: 0 }), deps);
    expect(deps.checkRuns[0]!.files).toEqual(["src/fetch.ts", "src/retry.ts"]);
  });

  it("sends the pull request's context blocks to the model as untrusted data, before the request", async () => {
    const deps = fakeDeps({ files, answers: [goodEdit] });
    await runCoder(
      coderOptions({ prContext: [{ label: "Review threads", text: "thread PRRT_1: please retry fetches" }] }),
      deps,
    );
    const messages = deps.requests[0]!.messages;
    const at = messages.findIndex((m) => m.content.includes("thread PRRT_1: please retry fetches"));
    expect(at).toBeGreaterThan(0);
    expect(messages[at]!.role).toBe("user");
    expect(messages[at]!.content).toContain("Review threads");
    expect(at).toBeLessThan(messages.length - 1);
  });

  it("fix-ci reproduces: the test command runs once before the first model call and its failure joins the request; setup is not repeated", async () => {
    const deps = fakeDeps({
      files,
      answers: [goodEdit],
      check: (req, nth) =>
        req.kind === "test" && nth === 1 ? { ok: false, output: "FAIL test/fetch.test.ts\nExpected: 3 retries" } : {},
    });
    const result = await runCoder(
      coderOptions({ reproduceTest: true, testCommand: "npm test", autoTest: true, setupCommands: ["npm ci"] }),
      deps,
    );
    expect(result.outcome).toBe("changed");
    expect(deps.checkRuns.map((r) => `${r.kind} ${r.command}`)).toEqual([
      "setup npm ci",
      "test npm test",
      "test npm test",
    ]);
    const first = lastUser(deps.requests[0]!);
    expect(first).toContain(
      "add retry logic to fetch client\n\nI ran `npm test` before any change and it fails here too:",
    );
    expect(first).toContain("Expected: 3 retries");
    // The commit keeps the request as it was asked.
    expect(deps.commits[0]!.body).not.toContain("Expected: 3 retries");
  });

  it("fix-ci reproduction that passes says so; without a test command nothing runs", async () => {
    const passing = fakeDeps({ files, answers: [goodEdit] });
    await runCoder(coderOptions({ reproduceTest: true, testCommand: "npm test" }), passing);
    expect(lastUser(passing.requests[0]!)).toContain("I ran `npm test` before any change and it passes here");
    const none = fakeDeps({ files, answers: [goodEdit] });
    await runCoder(coderOptions({ reproduceTest: true }), none);
    expect(none.checkRuns).toEqual([]);
    expect(lastUser(none.requests[0]!)).toBe("add retry logic to fetch client");
  });
});
