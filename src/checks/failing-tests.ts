import { stripAnsi } from "./strip-ansi.js";

/** The test runner whose report named the failing tests. */
export type TestRunner = "junit" | "pytest" | "jest" | "mocha" | "tap" | "node-test" | "go" | "cargo";

export interface FailingTests {
  runner: TestRunner;
  /** The failing tests' names, each once, sorted (order of output differs between runs of parallel runners). */
  names: string[];
}

/**
 * The failing tests a runner's output names (pure), or null when no runner's report of failures is recognised (a
 * build error, a missing tool, an unknown runner): JUnit XML, pytest, jest, mocha's spec reporter, TAP (node:test,
 * tape, mocha), node:test's spec reporter, `go test` and `cargo test`. Names are what the runner prints, so the
 * same failing test has the same name on the base and on the change.
 *
 * @example failingTests("--- FAIL: TestWrap (0.00s)\nFAIL") // { runner: "go", names: ["TestWrap"] }
 */
export function failingTests(output: string): FailingTests | null {
  const text = stripAnsi(output).replace(/\r\n?/g, "\n");
  for (const [runner, parse] of PARSERS) {
    const names = parse(text);
    if (names.length) return { runner, names: [...new Set(names.map((n) => n.trim()).filter(Boolean))].sort() };
  }
  return null;
}

const PARSERS: [TestRunner, (text: string) => string[]][] = [
  ["junit", junit],
  ["pytest", pytest],
  ["go", goTest],
  ["cargo", cargo],
  ["jest", jest],
  ["mocha", mocha],
  ["node-test", nodeSpec],
  ["tap", tap],
];

/** `<testcase classname="a" name="b">…<failure|error` → `a.b`. */
function junit(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    if (!m[2] || !/<(failure|error)\b/.test(m[2])) continue;
    const attr = (k: string) => new RegExp(`\\b${k}="([^"]*)"`).exec(m[1]!)?.[1];
    const name = attr("name");
    if (!name) continue;
    const cls = attr("classname");
    out.push(cls ? `${cls}.${name}` : name);
  }
  return out;
}

/** pytest's short summary: `FAILED tests/test_a.py::test_x - AssertionError…`, `ERROR tests/test_b.py`. */
function pytest(text: string): string[] {
  return [...text.matchAll(/^(?:FAILED|ERROR) (\S+?)(?: - .*)?$/gm)]
    .map((m) => m[1]!)
    .filter((n) => n.includes("::") || /\.py$/.test(n));
}

/** `--- FAIL: TestName (0.00s)` (subtests keep their `Parent/child` names); a package that did not build. */
function goTest(text: string): string[] {
  const tests = [...text.matchAll(/^\s*--- FAIL: (\S+)/gm)].map((m) => m[1]!);
  const builds = [...text.matchAll(/^FAIL\s+(\S+)\s+\[(build failed|setup failed)\]/gm)].map(
    (m) => `${m[1]} [${m[2]}]`,
  );
  return [...tests, ...builds];
}

/** `test tests::name ... FAILED`. */
function cargo(text: string): string[] {
  return [...text.matchAll(/^test (\S+) \.\.\. FAILED$/gm)].map((m) => m[1]!);
}

/** jest: `● Suite › test` headers; a file that could not run at all is named by its `FAIL path` line. */
function jest(text: string): string[] {
  if (!/^\s*(FAIL|PASS) \S/m.test(text) && !/^Tests:\s+\d+ failed/m.test(text)) return [];
  const headers = [...text.matchAll(/^\s*● (.+)$/gm)].map((m) => m[1]!.trim());
  const tests = headers.filter((h) => h !== "Test suite failed to run" && !/^Console$/.test(h));
  // Each file's report starts at its `FAIL path` line: a suite that could not run is named by that file.
  const files = text
    .split(/^(?=\s*FAIL \S)/m)
    .filter((part) => /^\s*● Test suite failed to run/m.test(part))
    .flatMap((part) => /^\s*FAIL (\S+)/.exec(part)?.[1] ?? [])
    .map((file) => `${file} (suite failed to run)`);
  return [...tests, ...files];
}

/**
 * mocha's spec reporter: after `N failing`, each failure is `  1) Suite` with its nested titles on the next lines
 * (more indented), the last ending in `:`.
 */
function mocha(text: string): string[] {
  const at = /^\s*\d+ failing\s*$/m.exec(text);
  if (!at) return [];
  const lines = text.slice(at.index + at[0].length).split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*\d+\) (.*)$/.exec(lines[i]!);
    if (!m) continue;
    const parts = [m[1]!.trim()];
    while (!parts.at(-1)!.endsWith(":") && i + 1 < lines.length && lines[i + 1]!.trim() && parts.length < 8) {
      parts.push(lines[++i]!.trim());
    }
    out.push(parts.join(" ").replace(/:$/, ""));
  }
  return out;
}

/** node:test's spec reporter: `✖ name (1.2ms)` (its closing "failing tests:" list repeats them). */
function nodeSpec(text: string): string[] {
  if (!/^ℹ (tests|fail) \d+/m.test(text) && !/^✖ failing tests:/m.test(text)) return [];
  return [...text.matchAll(/^\s*✖ (.+?)(?: \([\d.]+m?s\))?$/gm)]
    .map((m) => m[1]!.trim())
    .filter((n) => n !== "failing tests:");
}

/** TAP (node:test's tap reporter, tape, mocha --reporter tap): `not ok 3 - name`, TODO and SKIP aside. */
function tap(text: string): string[] {
  return [...text.matchAll(/^\s*not ok \d+(?: -)? ?(.*)$/gm)]
    .filter((m) => !/#\s*(TODO|SKIP)\b/i.test(m[1]!))
    .map((m) => m[1]!.replace(/\s+#.*$/, "").trim() || "(unnamed)");
}
