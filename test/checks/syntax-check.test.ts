import { readFileSync } from "node:fs";
import { syntaxCheck } from "../../src/checks/syntax-check.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/checks/syntax/${name}`, import.meta.url), "utf8");

describe("syntaxCheck", () => {
  it.each([
    ["modern.ts", "modern.ts"],
    ["component.tsx", "component.tsx"],
    ["app.py", "app.py"],
    ["main.go", "main.go"],
  ])("accepts the valid fixture %s (current syntax must not cause a fix loop)", async (path, name) => {
    expect(await syntaxCheck(path, fixture(name))).toEqual({
      kind: "syntax",
      ok: true,
      command: "",
      output: "",
      locations: [],
    });
  });

  it.each([
    ["a.js", "export const f = (a) => a + 1;\n"],
    ["a.rs", "fn main() { let x = 1; }\n"],
    ["A.java", "class A { void m() { int x = 1; } }\n"],
    ["a.c", "int main(void) { return 0; }\n"],
    ["a.cpp", "int main() { auto x = 1; return x; }\n"],
    ["a.rb", "def f(x)\n  x + 1\nend\n"],
    ["a.cs", "class A { void M() { var x = 1; } }\n"],
    ["a.php", "<?php function f($x) { return $x + 1; }\n"],
  ])("accepts valid %s", async (path, content) => {
    expect(await syntaxCheck(path, content)).toMatchObject({ ok: true });
  });

  it.each([
    ["a.ts", "export function f(a: number {\n  return a + 1;\n}\n", 1, "missing `)` after `number`"],
    ["a.ts", "function g() {\n  return 1;\n}}\n", 3, "unexpected `}`"],
    ["a.ts", "const x = [1, 2;\nconst y = 3;\n", 1, "missing `]` after `[1, 2`"],
    [
      "a.tsx",
      "export const App = () => {\n  return <div>\n    {items.map(i => <Item key={i} />}\n  </div>;\n};\n",
      3,
      "missing `)`",
    ],
    ["a.py", "def f(x):\n    return (x\n\ndef g():\n    pass\n", 2, "`(` is never closed"],
    ["a.py", "class A:\n    def m(self):\n        if x\n            pass\n", 3, "cannot parse `if x`"],
    ["a.go", "package main\n\nfunc main() {\n  x := \n}\n", 4, "missing identifier after `x :=`"],
    ["a.rs", "fn main() {\n    let x = 1\n    let y = 2;\n}\n", 2, "missing `;` after `let x = 1`"],
  ])("reports %s line and a description", async (path, content, line, message) => {
    const r = (await syntaxCheck(path, content))!;
    expect(r.ok).toBe(false);
    const loc = r.locations.find((l) => l.line === line);
    expect(loc?.message).toContain(message);
    expect(r.output).toContain(`${path}:${line}:`);
    expect(r.output).toMatch(new RegExp(`^ *${line}█`, "m"));
  });

  it("shows the enclosing scope headers of an error deep in a long file, with gaps", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `    const v${i} = ${i};`).join("\n");
    const content = `import x from "y";\n\nexport class Store {\n  load(\n    id: string,\n  ): void {\n${body}\n    call(1, ;\n  }\n}\n`;
    const r = (await syntaxCheck("store.ts", content))!;
    expect(r.ok).toBe(false);
    const rendered = r.output.split("\n## ")[1]!;
    expect(rendered).toContain("  3│export class Store {");
    expect(rendered).toContain("  4│  load(");
    expect(rendered).toContain("  6│  ): void {");
    expect(rendered).toContain(" 37█    call(1, ;");
    expect(rendered).not.toContain("v10 = 10");
    expect(rendered.match(/^⋮$/gm)?.length).toBeGreaterThanOrEqual(2);
  });

  it("does not blame an edit for errors the file already had (a grammar lagging the language)", async () => {
    // `export type *` (TypeScript 5.0) is valid, but tree-sitter-typescript 0.23 cannot parse it.
    const before = 'export type * from "./types.js";\nexport const a = 1;\n';
    const after = 'export type * from "./types.js";\nexport const a = 2;\n';
    expect(await syntaxCheck("a.ts", after)).toMatchObject({ ok: false });
    expect(await syntaxCheck("a.ts", after, { before })).toMatchObject({ ok: true });
    const broken = await syntaxCheck("a.ts", `${after}export const b = (;\n`, { before });
    expect(broken).toMatchObject({ ok: false });
    expect(broken!.locations.map((l) => l.line)).toEqual([3]);
  });

  it("returns null for languages it does not parse", async () => {
    expect(await syntaxCheck("README.md", "# hi\n")).toBeNull();
    expect(await syntaxCheck("Makefile", "all:\n\techo\n")).toBeNull();
  });
});
