import type { CoderResult } from "../../src/coder/types.js";
import { renderChecksStatus } from "../../src/report/render-checks-status.js";
import type { ResolvedChecks } from "../../src/run/prepare/resolve-checks.js";

const base = {
  reflections: 0,
  tokens: { prompt: 1, completion: 1 },
  costUsd: null,
  explanation: "",
  shell: [],
  elapsedMs: 1,
};
const changed = (extra: Partial<CoderResult> = {}): CoderResult =>
  ({
    ...base,
    outcome: "changed",
    editedFiles: [{ path: "a.py", added: 1, removed: 1 }],
    commit: null,
    ...extra,
  }) as CoderResult;
const plan = (test: string[] = []): ResolvedChecks["plan"] => ({
  setup: [],
  lint: [],
  test: test.map((command) => ({ command, source: "x" })),
  toolchain: {},
  excluded: [{ what: "`npm publish` (ci.yml job r, step 2)", why: "publishes a package" }],
});

describe("renderChecksStatus", () => {
  it.each([
    ["none found", undefined, { origin: "none", plan: plan() }, /No tests ran\*\*: no test command was found/],
    ["checks: off", undefined, { origin: "off", plan: plan() }, /No tests ran\*\*: checks are off \(`checks: off`/],
    [
      "test: []",
      undefined,
      { origin: "config", plan: plan(), emptied: ["test"] },
      /No tests ran\*\*: `test: \[\]` in `.github\/aider.yml` names none/,
    ],
    [
      "tool missing",
      [{ kind: "test", command: "pytest", source: "ci.yml job t, step 3", status: "tool-missing", note: "exit 127" }],
      { origin: "discovered", plan: plan(["pytest"]) },
      /`pytest` could not run: its tool is missing \(exit 127\)/,
    ],
    [
      "discovery failed",
      undefined,
      { origin: "none", plan: plan(), problem: "the repository could not be read (HTTP 502)" },
      /No tests ran\*\*: the repository could not be read \(HTTP 502\)/,
    ],
  ] as const)("a change without a test run says why: %s", (_name, runs, checks, line) => {
    const out = renderChecksStatus(changed(runs ? { checkRuns: [...runs] } : {}), checks as ResolvedChecks, true);
    expect(out.headline).toMatch(line);
    expect(out.headline).toContain("was not checked by the repository's tests");
  });

  it("names the commands that ran, their sources and what was left out", () => {
    const runs = [
      {
        kind: "lint" as const,
        command: "npm run lint",
        source: 'package.json script "lint"',
        status: "passed" as const,
      },
      { kind: "test" as const, command: "npm test", source: 'package.json script "test"', status: "passed" as const },
    ];
    const out = renderChecksStatus(
      changed({ checkRuns: runs }),
      { origin: "discovered", plan: plan(["npm test"]) },
      true,
    );
    expect(out.headline).toBe("🧪 Checks: ✅ `npm run lint` · ✅ `npm test`");
    expect(out.details).toContain('- ✅ `npm test` — passed · package.json script "test"');
    expect(out.details).toContain("`npm publish` (ci.yml job r, step 2) — publishes a package");
  });

  it("leaves the sandbox's own warning alone when nothing could run", () => {
    expect(
      renderChecksStatus(
        changed({ checksSkipped: "the sandbox cannot run" }),
        { origin: "discovered", plan: plan(["npm test"]) },
        true,
      ).headline,
    ).toBeNull();
  });
});
