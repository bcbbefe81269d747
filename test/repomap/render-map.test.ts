import { at } from "../helpers/at.js";
import { renderFile, renderMap } from "../../src/repomap/render-map.js";
import type { FileTags } from "../../src/repomap/types.js";

const code = [
  "class Car:",
  "    def __init__(self):",
  "        self.x = 1",
  "",
  "    def honk(self):",
  "        return 1",
  "",
  "",
  "def main():",
  "    pass",
];
const rowsOf = (...rows: number[]) => Object.fromEntries(rows.map((r) => [r, at(code, r)]));
const car: FileTags = {
  relPath: "car.py",
  tags: [],
  contexts: { 0: [0], 4: [0, 4], 8: [8] },
  rows: rowsOf(0, 1, 3, 4, 5, 7, 8, 9),
  lineCount: code.length,
};

describe("renderMap", () => {
  test("shows the definition with its scope header, │-prefixed, ⋮ for gaps, blank row after a shown row", () => {
    expect(renderFile(car, new Set([4]))).toBe("│class Car:\n⋮\n│    def honk(self):\n⋮\n");
    expect(renderFile(car, new Set([8]))).toBe("⋮\n│def main():\n⋮\n");
  });

  test("a one-row gap is filled instead of marked", () => {
    const ft: FileTags = { ...car, contexts: { 0: [0], 2: [2] }, rows: rowsOf(0, 1, 2, 3) };
    expect(renderFile(ft, new Set([0, 2]))).toBe("│class Car:\n│    def __init__(self):\n│        self.x = 1\n│\n⋮\n");
  });

  test("files in rank order, name-only files at the end, chat files left out, lines cut to 100", () => {
    const long: FileTags = {
      relPath: "long.ts",
      tags: [],
      contexts: { 0: [0] },
      rows: { 0: "x".repeat(100) },
      lineCount: 1,
    };
    const byFile = new Map([
      ["car.py", car],
      ["long.ts", long],
    ]);
    const text = renderMap(
      [
        { relPath: "long.ts", name: "x", line: 0 },
        { relPath: "notes.md" },
        { relPath: "car.py", name: "honk", line: 4 },
        { relPath: "chat.ts", name: "y", line: 1 },
      ],
      byFile,
      new Set(["chat.ts"]),
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("long.ts:");
    expect(lines[1]).toHaveLength(100);
    expect(text.indexOf("car.py:")).toBeGreaterThan(text.indexOf("long.ts:"));
    expect(text.trimEnd().endsWith("notes.md")).toBe(true);
    expect(text).not.toContain("chat.ts");
  });

  test("nothing chosen renders nothing", () => {
    expect(renderMap([], new Map())).toBe("");
  });
});
