import { baselineOf, compareWithBaseline } from "../../src/checks/compare-baseline.js";
import { failureLine, normaliseOutput } from "../../src/checks/normalise-output.js";
import { blockNote } from "../../src/egress/egress-report.js";

const HEAD = "/work/aider-bot-job-1-aaa/checkout";
const BASE = "/work/aider-bot-job-1-aaa/base";
const roots = [HEAD, BASE];
const failed = (output: string) => ({ ok: false, exitCode: 1, output });
const base = (output: string) => baselineOf(failed(output), roots);

const goMod = (root: string, ms: string) =>
  `go test ./...\ngo: go.mod file not found in current directory or any parent directory; see 'go help modules'\nmake: *** [Makefile:4: test] Error 1\n(took ${ms}ms in ${root})`;

/** The note the egress session adds to a failed command's output when the policy refused connections while it ran. */
const refused = (times: number) =>
  blockNote(
    [{ host: "proxy.golang.org", kind: "not-allowed", reason: "not on the allowlist", connections: times }],
    "registries",
  );

/** clippy's report of one lint, its source lines numbered from `at` (as rustc and gcc print them). */
const clippy = (at: number) =>
  [
    `    Checking itoa v1.0.0 (${HEAD})`,
    "error: casting `i8` to `u32` may lose the sign of the value",
    `   --> src/lib.rs:${at}:21`,
    "    |",
    `${at} |                       self as $conv_fn`,
    "    |                       ^^^^^^^^^^^^^^^^",
    "...",
    `${at + 69} | / impl_Integer!(`,
    `${at + 70} | |     I8_MAX_LEN => i8,`,
    `${at + 71} | |     U8_MAX_LEN => u8,`,
    "    = note: `-D clippy::cast-sign-loss` implied by `-D clippy::pedantic`",
    "error: could not compile `itoa` (lib) due to 1 previous error",
  ].join("\n");

/** A coverage wrapper that crashes on load after the package's build step printed its bundle sizes. */
const nycCrash = (sizes: string[]) =>
  [
    "> pkg@1.0.1 pretest",
    "> npm run build",
    "> pkg@1.0.1 build",
    "> bundt",
    "Filename  Filesize  (gzip)",
    ...sizes,
    "> pkg@1.0.1 test",
    "> uvu -r esm test",
    "node:internal/process/promises:391",
    "    triggerUncaughtException(err, true /* fromPromise */);",
    "    ^",
    "/home/u/.local/lib/node_modules/nyc/node_modules/append-transform/index.js:1",
    'TypeError [ERR_INVALID_ARG_TYPE]: The "mod" argument must be an instance of Module. Received an instance of Module',
    "    at makeRequireFunction (node:internal/modules/helpers:137:11)",
    "    at Module._compile (node:internal/modules/cjs/loader:1508:19)",
    "    at Module.replacementCompile (/home/u/.local/lib/node_modules/nyc/node_modules/append-transform/index.js:60:13)",
    "  code: 'ERR_INVALID_ARG_TYPE'",
    "}",
    "Node.js v20.20.2",
    "----------|---------|----------|---------|---------|-------------------",
    "File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s",
    "All files |       0 |        0 |       0 |       0 |",
  ].join("\n");

describe("compareWithBaseline: is a failure the change's, or did the base have it too?", () => {
  it.each([
    [
      "the same error where no test ran (go.mod missing), other folders and timings: pre-existing",
      failed(goMod(HEAD, "41")),
      base(goMod(BASE, "57")),
      {
        kind: "pre-existing",
        summary: "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
        tests: [],
      },
    ],
    [
      "the same failing go tests: pre-existing",
      failed("--- FAIL: TestWrap (0.01s)\nFAIL\nFAIL\tgithub.com/pkg/errors\t0.012s"),
      base("--- FAIL: TestWrap (0.00s)\nFAIL\nFAIL\tgithub.com/pkg/errors\t0.020s"),
      { kind: "pre-existing", summary: "1 failing test: TestWrap", tests: ["TestWrap"] },
    ],
    [
      "the same test failing with another error (the change at work on a test the base failed): new",
      failed(
        "FAIL: test_add (test_calc.AddTest)\nTraceback:\nAssertionError: 6 != 5\nRan 1 test in 0.001s\nFAILED (failures=1)",
      ),
      base(
        "FAIL: test_add (test_calc.AddTest)\nTraceback:\nAssertionError: -1 != 5\nRan 1 test in 0.002s\nFAILED (failures=1)",
      ),
      { kind: "new" },
    ],
    [
      "node:test naming the same test with another assertion: new",
      failed("✖ sum adds (1.1ms)\n  AssertionError: 0 !== 6\nℹ tests 1\nℹ fail 1"),
      base("✖ sum adds (0.9ms)\n  AssertionError: -6 !== 6\nℹ tests 1\nℹ fail 1"),
      { kind: "new" },
    ],
    [
      "the PR's own new test fails (the base never had it): new",
      failed("test tests::new_case ... FAILED\ntest tests::old ... ok"),
      base("test tests::flaky_net ... FAILED"),
      { kind: "new" },
    ],
    [
      "a new failing test beside one the base had: partly, each listed",
      failed("FAILED tests/test_a.py::test_new - assert 1 == 2\nFAILED tests/test_b.py::test_net - ConnectionError"),
      base("FAILED tests/test_b.py::test_net - ConnectionError"),
      { kind: "partly", added: ["tests/test_a.py::test_new"], preExisting: ["tests/test_b.py::test_net"] },
    ],
    [
      "the base failed on a build error, the change's tests ran and fail: new",
      failed("--- FAIL: TestWrap (0.00s)\nFAIL"),
      base("errors.go:12:3: undefined: fmt.Wrap"),
      { kind: "new" },
    ],
    [
      "the same crash before any test ran, after a build whose sizes changed with the code: pre-existing",
      failed(
        nycCrash(["dist/index.js  825 B  408 B", "dist/index.mjs  840 B  405 B", "dist/index.min.js  995 B  477 B"]),
      ),
      base(
        nycCrash(["dist/index.js  612 B  341 B", "dist/index.mjs  626 B  339 B", "dist/index.min.js  766 B  402 B"]),
      ),
      {
        kind: "pre-existing",
        summary:
          'TypeError [ERR_INVALID_ARG_TYPE]: The "mod" argument must be an instance of Module. Received an instance of Module',
        tests: [],
      },
    ],
    [
      "the same lint errors, the code above them a few lines shorter (rustc's and gcc's line-number gutter): pre-existing",
      failed(clippy(125)),
      base(clippy(128)),
      { kind: "pre-existing", summary: "error: casting `i8` to `u32` may lose the sign of the value", tests: [] },
    ],
    [
      "the same build, then another crash: new",
      failed(nycCrash(["dist/index.js  825 B  408 B"]).replace("ERR_INVALID_ARG_TYPE", "ERR_REQUIRE_ESM")),
      base(nycCrash(["dist/index.js  825 B  408 B"])),
      { kind: "new" },
    ],
    [
      "the same failure, the sandbox's note on refused connections counting other numbers: pre-existing",
      failed(`${goMod(HEAD, "12")}${refused(2)}`),
      base(`${goMod(BASE, "40")}${refused(5)}`),
      {
        kind: "pre-existing",
        summary: "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
        tests: [],
      },
    ],
    [
      "a different error: new",
      failed("src/a.ts(3,1): error TS2304: Cannot find name 'x'."),
      base("go: go.mod file not found in current directory"),
      { kind: "new" },
    ],
  ])("%s", (_name, head, b, verdict) => {
    expect(compareWithBaseline(head, b, roots)).toEqual(verdict);
  });

  it("a base that passed, or was not run, makes every failure new", () => {
    expect(compareWithBaseline(failed("x"), baselineOf({ ok: true, exitCode: 0, output: "ok" }, roots), roots)).toEqual(
      {
        kind: "new",
      },
    );
    expect(compareWithBaseline(failed("x"), null, roots)).toEqual({ kind: "new" });
  });
});

describe("normaliseOutput", () => {
  it("removes what differs between two runs of the same failure", () => {
    const a = normaliseOutput(
      `\u001b[31mError\u001b[0m at ${HEAD}/src/a.js:12:7 (pid 4123) 0x7ffd1234abcd 2026-11-28T20:01:02.123Z took 1.52s\n/tmp/pytest-of-root/pytest-3/x.txt\n\n`,
      roots,
    );
    const b = normaliseOutput(
      `Error at ${BASE}/src/a.js:14:2 (pid 99) 0x55d0aa11ee00 2026-11-29T01:00:00Z took 310ms\n/tmp/pytest-of-root/pytest-9/x.txt`,
      roots,
    );
    expect(a).toBe(b);
    expect(a).toBe("Error at <root>/src/a.js:N:N (pid N) <addr> <date> took <time>\n<tmp>");
  });

  it("failureLine picks the line that says what went wrong", () => {
    expect(failureLine(goMod(HEAD, "1"))).toBe(
      "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
    );
    expect(failureLine("collected 3 items\n\n3 failed in 0.2s\n")).toBe("3 failed in 0.2s");
  });
});
