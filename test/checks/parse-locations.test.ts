import { readFileSync } from "node:fs";
import { parseLocations } from "../../src/checks/parse-locations.js";

describe("parseLocations", () => {
  it.each([
    ["gcc / ruff", "src/a.c:12:5: error: expected ';'", [{ path: "src/a.c", line: 12, column: 5 }]],
    ["tsc", "src/index.ts(7,3): error TS2322: Type 'string' is not assignable", [{ path: "src/index.ts", line: 7, column: 3 }]],
    ["rust", "error[E0308]: mismatched types\n  --> src/main.rs:4:18\n", [{ path: "src/main.rs", line: 4, column: 18 }]],
    ["python traceback", 'Traceback (most recent call last):\n  File "/repo/pkg/mod.py", line 9, in f\n', [{ path: "pkg/mod.py", line: 9 }]],
    ["eslint stylish", "/repo/src/app.js\n  3:10  error  'x' is defined but never used  no-unused-vars\n", [{ path: "src/app.js", line: 3, column: 10 }]],
    ["go test", "--- FAIL: TestX (0.00s)\n    x_test.go:15: got 1 want 2\n", [{ path: "x_test.go", line: 15 }]],
    ["outside the repo is dropped", "/usr/lib/python3/x.py:3: warning", []],
  ])("%s", (_name, output, expected) => {
    expect(parseLocations(output, "/repo").map(({ path, line, column }) => ({ path, line, ...(column ? { column } : {}) }))).toEqual(expected);
  });

  it("reads a real ESLint stylish fixture", () => {
    const out = readFileSync(new URL("../fixtures/checks/eslint-stylish.txt", import.meta.url), "utf8");
    expect(parseLocations(out, "/work/app").map((l) => `${l.path}:${l.line}`)).toEqual(["src/a.ts:1", "src/b.ts:4"]);
  });
});
