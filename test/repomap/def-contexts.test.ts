import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Query, type Node } from "web-tree-sitter";
import { createParser, languageForPath, loadLanguage } from "../../src/treesitter/languages.js";
import { defContextRows } from "../../src/repomap/def-context.js";
import { createContextFinder, lineStarts } from "../../src/repomap/def-contexts.js";
import { TAG_QUERIES } from "../../src/repomap/tag-queries.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");

async function defNodesOf(relPath: string, content: string) {
  const id = languageForPath(relPath);
  if (!id) return null;
  const parser = await createParser(id);
  const query = new Query(await loadLanguage(id), TAG_QUERIES[id]);
  const tree = parser.parse(content);
  if (!tree) throw new Error("no tree");
  const nodes: Node[] = query
    .captures(tree.rootNode)
    .filter((c) => c.name.startsWith("def"))
    .map((c) => c.node);
  return { tree, content, nodes, free: () => (tree.delete(), query.delete(), parser.delete()) };
}

describe("createContextFinder", () => {
  test("gives defContextRows' rows for every definition of every sample file", async () => {
    const files = (await readdir(SAMPLE, { recursive: true })).filter((f) => languageForPath(f));
    expect(files.length).toBeGreaterThan(10);
    for (const rel of files) {
      const parsed = await defNodesOf(rel, await readFile(path.join(SAMPLE, rel), "utf8"));
      if (!parsed) continue;
      const finder = createContextFinder(parsed.tree, lineStarts(parsed.content));
      for (const n of parsed.nodes) expect([rel, finder.rowsFor(n)]).toEqual([rel, defContextRows(n)]);
      parsed.free();
    }
  });

  test("out of source order, nested scopes and error recovery give the same rows too", async () => {
    const code = [
      "export class Outer {",
      "  method(",
      "    a: number,",
      "  ): void {",
      "    const inner = () => {",
      "      return 1;",
      "    };",
      "  }",
      "}",
      "function broken( {",
      "export const late = function () {",
      "  return 2;",
      "};",
    ].join("\n");
    const parsed = await defNodesOf("x.ts", code);
    if (!parsed) throw new Error("no parse");
    const finder = createContextFinder(parsed.tree, lineStarts(parsed.content));
    for (const n of [...parsed.nodes].reverse().concat(parsed.nodes))
      expect(finder.rowsFor(n)).toEqual(defContextRows(n));
    parsed.free();
  });

  test("rows are right past multi-byte and astral characters and in CRLF files (offsets are string offsets)", async () => {
    const code = [
      "// ünïcödé 🎉🎉 — ∑ 漢字",
      "export class Café {",
      "  naïve(",
      '    a: string = "🎉",',
      "  ): void {",
      "    const ß = () => {",
      '      return "漢字";',
      "    };",
      "  }",
      "}",
      "export function 𝒻(): number {",
      "  return 1;",
      "}",
    ];
    for (const eol of ["\n", "\r\n"]) {
      const parsed = await defNodesOf("u.ts", code.join(eol) + eol);
      if (!parsed) throw new Error("no parse");
      expect(parsed.nodes.length).toBeGreaterThanOrEqual(3);
      const finder = createContextFinder(parsed.tree, lineStarts(parsed.content));
      for (const n of parsed.nodes) expect([eol, n.text, finder.rowsFor(n)]).toEqual([eol, n.text, defContextRows(n)]);
      parsed.free();
    }
  });
});

describe("lineStarts", () => {
  test.each([
    ["", [0]],
    ["a", [0]],
    ["a\n", [0, 2]],
    ["a\r\nbc\n\nd", [0, 3, 6, 7]],
  ])("%j", (text, starts) => {
    expect([...lineStarts(text)]).toEqual(starts);
  });
});
