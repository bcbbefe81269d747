import { syntaxCheck } from "../../src/checks/syntax-check.js";

describe("syntaxCheck", () => {
  it.each([
    ["a.ts", "export function f(a: number): number {\n  return a + 1;\n}\n"],
    ["a.tsx", "export const App = () => <div className=\"x\">{1}</div>;\n"],
    ["a.py", "def f(x):\n    return x\n"],
    ["a.go", "package main\n\nfunc main() {}\n"],
    ["a.rs", "fn main() { let x = 1; }\n"],
  ])("accepts valid %s", async (path, content) => {
    expect(await syntaxCheck(path, content)).toMatchObject({ ok: true });
  });

  it.each([
    ["a.ts", "export function f(a: number {\n  return a + 1;\n}\n", 1],
    ["a.tsx", "export const App = () => {\n  return <div>\n    {items.map(i => <Item key={i} />}\n  </div>;\n};\n", 3],
    ["a.py", "def f(x):\n    return (x\n\ndef g():\n    pass\n", 2],
    ["a.go", "package main\n\nfunc main() {\n  x := \n}\n", 4],
  ])("reports the error line and the code around it in %s", async (path, content, line) => {
    const r = (await syntaxCheck(path, content))!;
    expect(r.ok).toBe(false);
    expect(r.locations.map((l) => l.line)).toContain(line);
    expect(r.output).toMatch(/missing|unexpected|syntax error/);
    expect(r.output).toContain("█");
  });

  it("returns null for languages it does not parse", async () => {
    expect(await syntaxCheck("README.md", "# hi\n")).toBeNull();
  });
});
