import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import { decodeColumns, encodeFileTags, tagColumns } from "../../src/repomap/tag-blob.js";
import { buildTagGraph, buildTagGraphFromColumns } from "../../src/repomap/tag-graph.js";
import type { Tag } from "../../src/repomap/types.js";
import { languageForPath } from "../../src/treesitter/languages.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");

describe("buildTagGraphFromColumns", () => {
  test("gives the graph buildTagGraph gives from the same files' tags, from blobs or from tags in memory", async () => {
    const extractor = createTagExtractor();
    const files: { relPath: string; tags: Tag[]; blob: Uint8Array }[] = [];
    try {
      for (const rel of (await readdir(SAMPLE, { recursive: true })).sort()) {
        if (!languageForPath(rel)) continue;
        const ft = await extractor.extract(rel, await readFile(path.join(SAMPLE, rel), "utf8"));
        if (ft) files.push({ relPath: rel, tags: ft.tags, blob: encodeFileTags(ft) });
      }
    } finally {
      extractor.dispose();
    }
    // A file without tags, between others: numbered by neither.
    files.splice(2, 0, {
      relPath: "empty.ts",
      tags: [],
      blob: encodeFileTags({ relPath: "empty.ts", tags: [], contexts: {}, rows: {}, lineCount: 0 }),
    });
    expect(files.length).toBeGreaterThan(10);
    const expected = buildTagGraph(files.flatMap((f) => f.tags));
    expect(expected.pairNode.length).toBeGreaterThan(20);
    expect(
      buildTagGraphFromColumns(files.map((f) => ({ relPath: f.relPath, columns: decodeColumns(f.blob) }))),
    ).toEqual(expected);
    expect(buildTagGraphFromColumns(files.map((f) => ({ relPath: f.relPath, columns: tagColumns(f.tags) })))).toEqual(
      expected,
    );
  });

  test("names shared across files and files in another order number as the tags would", () => {
    const tag = (relPath: string, name: string, kind: "def" | "ref", line: number): Tag => ({
      relPath,
      name,
      kind,
      line,
    });
    const a = [tag("a.ts", "render", "def", 1), tag("a.ts", "Widget", "ref", 2), tag("a.ts", "render", "ref", 3)];
    const b = [tag("b.ts", "Widget", "def", 0), tag("b.ts", "helper", "def", 4), tag("b.ts", "render", "ref", 5)];
    const c = [tag("c.ts", "helper", "ref", 0), tag("c.ts", "Widget", "ref", 1)];
    for (const order of [
      [a, b, c],
      [c, b, a],
      [b, c, a],
    ]) {
      const fromColumns = buildTagGraphFromColumns(
        order.map((tags) => ({ relPath: tags[0]!.relPath, columns: tagColumns(tags) })),
      );
      expect(fromColumns).toEqual(buildTagGraph(order.flat()));
    }
  });
});
