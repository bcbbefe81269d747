import { codeScopes, preloadLanguages } from "../../src/checks/code-scopes.js";
import { indentScopes } from "../../src/checks/indent-scopes.js";
import { renderCodeContext } from "../../src/checks/render-code-context.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line${i + 1}`).join("\n") + "\n";

describe("renderCodeContext", () => {
  it.each([
    [
      "a middle line with padding, gaps both sides",
      numbered(20),
      [10],
      { pad: 2, lineNumbers: false },
      "⋮\n│line8\n│line9\n█line10\n│line11\n│line12\n⋮",
    ],
    ["the first line: no leading gap", numbered(5), [1], { pad: 1, lineNumbers: false }, "█line1\n│line2\n⋮"],
    [
      "a one-line gap is filled instead of `⋮`",
      numbered(12),
      [3, 7],
      { pad: 1, lineNumbers: false },
      "⋮\n│line2\n█line3\n│line4\n│line5\n│line6\n█line7\n│line8\n⋮",
    ],
    ["line numbers right-aligned", numbered(12), [10], { pad: 1 }, "⋮\n  9│line9\n 10█line10\n 11│line11\n⋮"],
    ["out-of-range lines ignored", numbered(3), [0, 99], {}, ""],
  ])("%s", (_name, content, lines, options, expected) => {
    expect(renderCodeContext(content, lines, options)).toBe(expected);
  });

  it("shows enclosing scope headers, multi-line ones whole", () => {
    const content = numbered(40);
    const scopes = [
      { start: 1, end: 39, headerEnd: 1 },
      { start: 9, end: 30, headerEnd: 11 },
      { start: 32, end: 35, headerEnd: 32 },
    ];
    expect(renderCodeContext(content, [25], { scopes, pad: 0, lineNumbers: false })).toBe(
      "⋮\n│line2\n⋮\n│line10\n│line11\n│line12\n⋮\n█line25\n⋮",
    );
  });

  it("caps the rows, keeping marked lines and headers before padding", () => {
    const scopes = [{ start: 0, end: 99, headerEnd: 0 }];
    const out = renderCodeContext(numbered(100), [20, 50, 80], { scopes, pad: 5, maxLines: 5, lineNumbers: false });
    const rows = out.split("\n").filter((l) => l !== "⋮");
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(expect.arrayContaining(["│line1", "█line20", "█line50", "█line80"]));
  });

  it("cuts very long lines", () => {
    expect(renderCodeContext(`${"x".repeat(500)}\n`, [1], { maxLineLength: 10, lineNumbers: false })).toBe(
      `█${"x".repeat(10)} …`,
    );
  });
});

describe("indentScopes", () => {
  it("finds Python-style and brace-style blocks", () => {
    expect(indentScopes("def f():\n    a\n\n    b\nc\n")).toEqual([{ start: 0, end: 3, headerEnd: 0 }]);
    expect(indentScopes("fn() {\n  if (x) {\n    y\n  }\n}\n")).toEqual([
      { start: 0, end: 4, headerEnd: 0 },
      { start: 1, end: 3, headerEnd: 1 },
    ]);
  });
});

describe("codeScopes", () => {
  it("uses the syntax tree once the grammar is loaded, for multi-line headers", async () => {
    const content = "class A {\n  m(\n    a: number,\n  ) {\n    return a;\n  }\n}\n";
    await preloadLanguages(["x.ts"]);
    expect(codeScopes("x.ts", content)).toEqual(expect.arrayContaining([{ start: 1, end: 5, headerEnd: 3 }]));
  });

  it("falls back to indentation for files it cannot parse", () => {
    expect(codeScopes("x.vue", "<template>\n  <div/>\n</template>\n")).toEqual([{ start: 0, end: 2, headerEnd: 0 }]);
  });
});
