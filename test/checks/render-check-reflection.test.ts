import { readFileSync } from "node:fs";
import { parseLocations } from "../../src/checks/parse-locations.js";
import { renderCheckReflection } from "../../src/checks/render-check-reflection.js";
import { syntaxCheck } from "../../src/checks/syntax-check.js";
import type { CheckReport } from "../../src/checks/types.js";

const server = Array.from({ length: 30 }, (_, i) => `  const v${i} = ${i};`);
const serverTs = `import http from "node:http";\n\nexport function start(): void {\n${server.join("\n")}\n  const port: number = "8080";\n  http.createServer().listen(port);\n}\n`;

describe("renderCheckReflection", () => {
  const tsc = readFileSync(new URL("../fixtures/checks/tsc.txt", import.meta.url), "utf8");
  const lint: CheckReport = {
    kind: "lint",
    ok: false,
    command: "npx tsc --noEmit",
    exitCode: 2,
    output: tsc,
    locations: parseLocations(tsc, "/work/app").map((l) => (l.path === "src/server.ts" ? { ...l, line: 34 } : l)),
  };

  it("names the failed command, fences its output and shows the code at each location in known files", () => {
    const text = renderCheckReflection(lint, new Map([["src/server.ts", serverTs]]));
    expect(text).toMatch(/^# The lint command `npx tsc --noEmit` failed \(exit code 2\)/);
    expect(text).toContain("error TS2322");
    expect(text).toContain("src/server.ts:\n```\n⋮\n  3│export function start(): void {\n⋮\n");
    expect(text).toContain(' 34█  const port: number = "8080";');
    expect(text).not.toContain("src/util/parse.ts:\n"); // unknown file: no context
    expect(text).not.toContain("index.d.ts:\n"); // dependency frames are never shown as code to fix
    expect(text).toMatch(/Fix the errors reported above/);
  });

  it("accepts a reader function instead of a map", () => {
    const read = (p: string) =>
      p === "src/util/parse.ts" ? "import x from './missing';\nimport y from './ok';\nexport const z = x + y;\n" : null;
    const text = renderCheckReflection(lint, read);
    expect(text).toContain(
      "src/util/parse.ts:\n```\n  1│import x from './missing';\n  2│import y from './ok';\n  3█export const z = x + y;\n```",
    );
  });

  it("asks to fix the code, not the tests, for a failed test run, and says when nothing was printed", () => {
    const text = renderCheckReflection(
      { kind: "test", ok: false, command: "npm test", exitCode: 1, output: "", locations: [] },
      new Map(),
    );
    expect(text).toMatch(/^# The test command `npm test` failed \(exit code 1\)/);
    expect(text).toContain("(it printed nothing and exited with code 1)");
    expect(text).toMatch(/Change a test only when the test itself is wrong/);
  });

  it("uses a longer fence when the output contains one", () => {
    const text = renderCheckReflection(
      { kind: "test", ok: false, command: "t", output: "```\nx\n```", locations: [] },
      new Map(),
    );
    expect(text).toContain("````\n```\nx\n```\n````");
  });

  it("passes environment failures through without code or a request to edit", () => {
    const text = renderCheckReflection(
      {
        kind: "lint",
        ok: false,
        command: "ruff",
        exitCode: 127,
        output: "The lint command `ruff` was not found (exit 127).",
        locations: [],
        environmentError: true,
      },
      new Map(),
    );
    expect(text).toBe(
      "# The lint command `ruff` failed (exit code 127)\n\nThe lint command `ruff` was not found (exit 127).",
    );
  });

  it("wraps a syntax report, whose output already carries the marked code", async () => {
    const report = (await syntaxCheck("a.py", "def f(:\n    pass\n"))!;
    const text = renderCheckReflection(report, new Map());
    expect(text).toMatch(/^# The syntax check failed on the edited code\n\na\.py:1:/);
    expect(text).toContain("  1█def f(:");
    expect(text).toMatch(/Fix these syntax errors\.$/);
  });
});
