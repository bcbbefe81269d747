import { readFileSync } from "node:fs";
import { parseLocations } from "../../src/checks/parse-locations.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/checks/${name}`, import.meta.url), "utf8");
const brief = (locs: ReturnType<typeof parseLocations>) =>
  locs.map((l) => `${l.path}:${l.line}${l.column ? `:${l.column}` : ""}`);

describe("parseLocations on real tool output", () => {
  it.each([
    ["tsc.txt", ["src/server.ts:14:7", "src/util/parse.ts:3:21", "node_modules/@types/foo/index.d.ts:1:1"]],
    ["tsc-pretty.txt", ["src/server.ts:14:7"]],
    ["eslint-stylish.txt", ["src/a.ts:1:7", "src/b.ts:4:1"]],
    ["eslint-json.txt", ["src/a.ts:7:3", "src/b.ts:2:12"]],
    ["pytest.txt", ["tests/test_calc.py:9", "calc/core.py:12"]],
    ["go-test.txt", ["internal/calc/calc.go:8:2", "calc_test.go:15"]],
    ["rustc.txt", ["src/main.rs:4:18", "src/lib/util.rs:10:9"]],
    ["ruff.txt", ["calc/core.py:3:8", "calc/core.py:12:5"]],
    ["jest.txt", ["test/sum.test.ts:5:23", "node_modules/jest-circus/build/utils.js:298:28"]],
  ])("%s", (name, expected) => {
    expect(brief(parseLocations(fixture(name), "/work/app"))).toEqual(expected);
  });

  it("keeps the message of each format", () => {
    const messages = (name: string) => parseLocations(fixture(name), "/work/app").map((l) => l.message);
    expect(messages("tsc.txt")[0]).toBe("error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(messages("eslint-stylish.txt")[0]).toBe(
      "'unused' is assigned a value but never used (@typescript-eslint/no-unused-vars)",
    );
    expect(messages("eslint-json.txt")).toEqual(["'foo' is not defined. (no-undef)", "Parsing error: ')' expected."]);
    expect(messages("rustc.txt")).toEqual(["mismatched types", "unused variable: `y`"]);
    expect(messages("ruff.txt")[0]).toBe("F401 [*] `os` imported but unused");
  });
});

describe("parseLocations rules", () => {
  it.each([
    ["gcc", "src/a.c:12:5: error: expected ';'", ["src/a.c:12:5"]],
    ["absolute path under the root made relative", "/repo/pkg/mod.py:3: E1", ["pkg/mod.py:3"]],
    ["absolute path outside the root dropped", "/usr/lib/python3/x.py:3: warning", []],
    ["root prefix that is only a name prefix dropped", "/repo2/x.py:3: warning", []],
    ["`..` escapes dropped", "../other/x.ts:3:1: error", []],
    ["./ prefix removed", "./cmd/main.go:5:2: undefined: x", ["cmd/main.go:5:2"]],
    ["times and versions are not paths", "10:30:45 started; version 1.5:3", []],
    ["URLs are not paths", "see https://example.com/docs.html:80 for help", []],
    ["one entry per line", "a.ts:3:1: one\na.ts:3:9: two", ["a.ts:3:1"]],
    ["python traceback", '  File "/repo/pkg/mod.py", line 9, in f', ["pkg/mod.py:9"]],
  ])("%s", (_name, output, expected) => {
    expect(brief(parseLocations(output, "/repo"))).toEqual(expected);
  });

  it("restricts to known files and caps the count", () => {
    const out = Array.from({ length: 50 }, (_, i) => `src/f${i % 3}.ts:${i + 1}:1: e`).join("\n");
    expect(new Set(parseLocations(out, "/repo", { knownFiles: new Set(["src/f1.ts"]) }).map((l) => l.path))).toEqual(
      new Set(["src/f1.ts"]),
    );
    expect(parseLocations(out, "/repo", { limit: 7 })).toHaveLength(7);
  });
});
