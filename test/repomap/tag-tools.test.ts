import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { compiledTagQueries, createTagExtractor, warmTagTools } from "../../src/repomap/extract-tags.js";

// Its own file: jest gives each file fresh modules, so this thread has compiled no tag query before these tests.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tag-tools-"));
  await writeFile(path.join(root, "shapes.py"), "class Square:\n    def area(self):\n        return side(self) ** 2\n");
  await writeFile(path.join(root, "util.py"), "def side(shape):\n    return shape.width\n");
  await writeFile(path.join(root, "main.go"), "package main\n\nfunc main() { run() }\n\nfunc run() {}\n");
  await loadTokenizer();
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("the thread's tag tools", () => {
  it("a language's tag query is compiled once, however many maps and extractors use it", async () => {
    expect(compiledTagQueries()).toBe(0);
    for (let i = 0; i < 3; i++) {
      // No tag cache: every build parses both Python files again.
      const map = await buildRepoMap({ root, files: ["shapes.py", "util.py"], cacheDir: null, threads: 0 });
      expect(map.stats.parsed).toBe(2);
      expect(map.text).toContain("class Square");
    }
    const other = createTagExtractor();
    expect((await other.extract("more.py", "def more():\n    pass\n"))?.tags.map((t) => t.name)).toEqual(["more"]);
    other.dispose();
    expect(compiledTagQueries()).toBe(1);
  });

  it("warmTagTools compiles ahead what a first map in that language needs: the map then compiles nothing", async () => {
    const before = compiledTagQueries();
    await warmTagTools("go");
    expect(compiledTagQueries()).toBe(before + 1);
    const map = await buildRepoMap({ root, files: ["main.go"], cacheDir: null, threads: 0 });
    expect(map.text).toContain("func run()");
    expect(compiledTagQueries()).toBe(before + 1);
    await warmTagTools("go");
    expect(compiledTagQueries()).toBe(before + 1);
  });
});
