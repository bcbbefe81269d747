import { failingTests } from "../../src/checks/failing-tests.js";

const JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" errors="0" time="1.2">
  <testsuite name="wrap" errors="0" failures="1" skipped="0" timestamp="2026-11-28T20:00:00" time="0.8" tests="3">
    <testcase classname="wrap adds a message" name="wrap adds a message" time="0.002">
      <failure>Error: expect(received).toBe(expected)</failure>
    </testcase>
    <testcase classname="wrap keeps the cause" name="wrap keeps the cause" time="0.001"/>
    <testcase classname="errors.TestCause" name="TestCause" time="0.001"><error message="panic">boom</error></testcase>
  </testsuite>
</testsuites>`;

const PYTEST = `============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0
rootdir: /tmp/aider-bot-job-12-abc/checkout
collected 214 items

tests/test_make.py ........F.....                                        [ 10%]
tests/test_funcs.py ..E

=================================== FAILURES ===================================
______________________________ test_frozen_slots _______________________________
E       AssertionError: assert 1 == 2
tests/test_make.py:122: AssertionError
=========================== short test summary info ============================
FAILED tests/test_make.py::TestAttributes::test_frozen_slots - AssertionError: assert 1 == 2
ERROR tests/test_funcs.py::test_asdict[True] - fixture 'tmp' not found
========================= 1 failed, 212 passed, 1 error in 3.41s =========================`;

const JEST = `FAIL src/wrap.test.ts
  wrap
    ✓ keeps the cause (2 ms)
    ✕ adds a message (4 ms)

  ● wrap › adds a message

    expect(received).toBe(expected) // Object.is equality

    Expected: "a: b"
    Received: "a"

      at Object.<anonymous> (src/wrap.test.ts:12:29)

FAIL src/broken.test.ts
  ● Test suite failed to run

    Cannot find module './missing' from 'src/broken.test.ts'

Test Suites: 2 failed, 2 total
Tests:       1 failed, 1 passed, 2 total
Time:        1.532 s`;

const MOCHA = `

  co(* -> yield [])
    ✔ should aggregate several promises
    1) should throw on rejection

  co(fn*)
    with a generator function
      2) should wrap it


  2 passing (31ms)
  2 failing

  1) co(* -> yield [])
       should throw on rejection:
     AssertionError [ERR_ASSERTION]: expected error
      at Context.<anonymous> (test/arrays.js:31:12)

  2) co(fn*)
       with a generator function
         should wrap it:
     TypeError: fn is not a function
      at co (index.js:48:13)
`;

const NODE_TAP = `TAP version 13
# Subtest: parses a range
ok 1 - parses a range
  ---
  duration_ms: 0.7
  ...
# Subtest: picks the newest version
not ok 2 - picks the newest version
  ---
  duration_ms: 1.2
  failureType: 'testCodeFailure'
  ...
not ok 3 - later # TODO not written yet
1..3
# tests 3
# fail 1`;

const NODE_SPEC = `✔ parses a range (0.712ms)
✖ picks the newest version (1.2ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
  '0.11' !== '22'
ℹ tests 2
ℹ pass 1
ℹ fail 1
ℹ duration_ms 52.1

✖ failing tests:

test at test/engines.test.js:14:1
✖ picks the newest version (1.2ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:`;

const GO = `=== RUN   TestWrap
--- FAIL: TestWrap (0.00s)
    errors_test.go:31: got "a", want "a: b"
=== RUN   TestFormat
=== RUN   TestFormat/verbose
    --- FAIL: TestFormat/verbose (0.00s)
FAIL
FAIL	github.com/pkg/errors	0.012s
FAIL	github.com/pkg/errors/cmd [build failed]
FAIL`;

const CARGO = `running 3 tests
test tests::parses ... ok
test tests::wraps_width ... FAILED
test tests::unicode::emoji ... FAILED

failures:

---- tests::wraps_width stdout ----
thread 'tests::wraps_width' panicked at src/lib.rs:40:9:
assertion \`left == right\` failed

failures:
    tests::unicode::emoji
    tests::wraps_width

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s`;

describe("failingTests: the failing tests a runner's output names", () => {
  it.each([
    ["JUnit XML", JUNIT, "junit", ["errors.TestCause.TestCause", "wrap adds a message.wrap adds a message"]],
    [
      "pytest",
      PYTEST,
      "pytest",
      ["tests/test_funcs.py::test_asdict[True]", "tests/test_make.py::TestAttributes::test_frozen_slots"],
    ],
    ["jest", JEST, "jest", ["src/broken.test.ts (suite failed to run)", "wrap › adds a message"]],
    [
      "mocha (spec)",
      MOCHA,
      "mocha",
      ["co(* -> yield []) should throw on rejection", "co(fn*) with a generator function should wrap it"],
    ],
    ["node:test (TAP)", NODE_TAP, "tap", ["picks the newest version"]],
    ["node:test (spec)", NODE_SPEC, "node-test", ["picks the newest version"]],
    ["go test", GO, "go", ["TestFormat/verbose", "TestWrap", "github.com/pkg/errors/cmd [build failed]"]],
    ["cargo test", CARGO, "cargo", ["tests::unicode::emoji", "tests::wraps_width"]],
  ])("%s", (_name, output, runner, names) => {
    expect(failingTests(output)).toEqual({ runner, names });
  });

  it("names nothing where no test ran: a build error, a missing tool, a runner it does not know", () => {
    expect(
      failingTests("go: go.mod file not found in current directory or any parent directory; see 'go help modules'"),
    ).toBeNull();
    expect(failingTests("sh: 1: uv: not found")).toBeNull();
    expect(failingTests("make: *** [Makefile:4: test] Error 1")).toBeNull();
  });

  it("reads through colour codes and Windows line ends", () => {
    expect(failingTests("\u001b[31m--- FAIL: TestA (0.00s)\u001b[0m\r\nFAIL\r\n")).toEqual({
      runner: "go",
      names: ["TestA"],
    });
  });
});
