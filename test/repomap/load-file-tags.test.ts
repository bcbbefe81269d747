import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import { loadFileTags } from "../../src/repomap/load-file-tags.js";

let root: string;
const files: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "repomap-load-"));
  await mkdir(path.join(root, "lib"));
  // 90 modules that use each other, and 10 byte-identical copies (vendored twice, say).
  for (let i = 0; i < 90; i++) {
    const code = `import { make${(i + 1) % 90} } from "./m${(i + 1) % 90}.js";\n\nexport class Part${i} {\n  build(): Part${(i + 7) % 90} {\n    return make${(i + 1) % 90}();\n  }\n}\n\nexport function make${i}(): Part${i} {\n  return new Part${i}();\n}\n`;
    await writeFile(path.join(root, `lib/m${i}.ts`), code);
    files.push(`lib/m${i}.ts`);
  }
  for (let i = 0; i < 10; i++) {
    await writeFile(path.join(root, `lib/copy${i}.ts`), "export function sharedHelper(): number {\n  return 42;\n}\n");
    files.push(`lib/copy${i}.ts`);
  }
  await loadTokenizer();
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("loadFileTags / buildRepoMap with worker threads", () => {
  test("a worker thread gives exactly the single-threaded map; identical files are parsed once", async () => {
    const request = { root, files, mentionedIdents: ["make42"], cacheDir: null };
    const single = await buildRepoMap({ ...request, threads: 0 });
    const parallel = await buildRepoMap({ ...request, threads: 1 });
    expect(single.stats.threads).toBe(0);
    expect(parallel.stats.threads).toBe(1);
    expect(parallel.text).toBe(single.text);
    expect(parallel.rankedFiles).toEqual(single.rankedFiles);
    expect(parallel.text).toMatch(/^lib\/m\d+\.ts:\n⋮\n│export class Part\d+ \{\n/);
    for (const stats of [single.stats, parallel.stats]) {
      expect(stats.parsed).toBe(91);
      expect(stats.cacheHits).toBe(9);
    }
  });

  test("every copy gets its own path in its tags, and the order of the files is kept", async () => {
    const extractor = createTagExtractor();
    try {
      const loaded = await loadFileTags({ root, files, extractor, cache: null, maxFileBytes: 1_000_000, threads: 1 });
      expect([...loaded.byFile.keys()]).toEqual(files);
      const copy = loaded.byFile.get("lib/copy7.ts");
      expect(copy?.fileTags().tags).toEqual([{ relPath: "lib/copy7.ts", name: "sharedHelper", kind: "def", line: 0 }]);
      expect(copy?.fileTags().relPath).toBe("lib/copy7.ts");
      expect(loaded.byFile.get("lib/m3.ts")?.fileTags().rows[2]).toBe("export class Part3 {");
    } finally {
      extractor.dispose();
    }
  });
});
