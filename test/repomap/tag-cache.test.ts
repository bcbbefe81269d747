import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { listRepoFiles } from "../../src/workspace/list-repo-files.js";
import { encodeFileTags } from "../../src/repomap/tag-blob.js";
import { contentStateKey, openTagCache } from "../../src/repomap/tag-cache.js";
import { buildTagGraph } from "../../src/repomap/tag-graph.js";
import type { FileTags } from "../../src/repomap/types.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "repomap-cache-"));
  await loadTokenizer();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fileTags = (relPath: string, name: string): FileTags => ({
  relPath,
  tags: [
    { relPath, name, kind: "def", line: 0 },
    { relPath, name: "other", kind: "ref", line: 1 },
  ],
  contexts: { 0: [0] },
  rows: { 0: `def ${name}():`, 1: "  other()" },
  lineCount: 2,
});

describe("tag cache", () => {
  test("tags and render detail survive a reopen, decoded on demand; lookups by stat and by content hash", async () => {
    const cache = await openTagCache(dir);
    cache.store("a.py", "h1", { size: 10, mtimeMs: 5 }, encodeFileTags(fileTags("a.py", "alpha")));
    await cache.save();
    const again = await openTagCache(dir);
    expect(again.byStat("a.py", { size: 10, mtimeMs: 6 })).toBeNull();
    const hit = again.byStat("a.py", { size: 10, mtimeMs: 5 });
    expect(hit?.hash).toBe("h1");
    expect(hit?.fileTags().tags).toEqual(fileTags("a.py", "alpha").tags);
    expect(hit?.fileTags()).toEqual(fileTags("a.py", "alpha"));
    // A copy under another name is found by its content.
    expect(again.byHash("b.py", "h1", null)?.fileTags().tags[0]).toEqual({
      relPath: "b.py",
      name: "alpha",
      kind: "def",
      line: 0,
    });
  });

  test("an opened cache keeps reading its own file when another job replaces it; a damaged file is an empty cache", async () => {
    const first = await openTagCache(dir);
    first.store("a.py", "h1", { size: 10, mtimeMs: 5 }, encodeFileTags(fileTags("a.py", "alpha")));
    await first.save();
    first.close();
    const reader = await openTagCache(dir);
    const hit = reader.byStat("a.py", { size: 10, mtimeMs: 5 });
    // Another job writes a different cache in the meantime (rename over the file).
    const writer = await openTagCache(dir);
    writer.store("z.py", "h9", { size: 1, mtimeMs: 1 }, encodeFileTags(fileTags("z.py", "zeta")));
    await writer.save();
    writer.close();
    expect(hit?.fileTags()).toEqual(fileTags("a.py", "alpha"));
    reader.close();

    const file = path.join(dir, "tags.bin");
    await writeFile(file, (await readFile(file)).subarray(0, 40));
    const damaged = await openTagCache(dir);
    expect(damaged.byStat("z.py", { size: 1, mtimeMs: 1 })).toBeNull();
    damaged.close();
  });

  test("the graph is kept for its content state only: one changed file gives another key and no graph", async () => {
    const state = [
      { relPath: "a.py", hash: "h1" },
      { relPath: "b.py", hash: "h2" },
    ];
    const changed = [
      { relPath: "a.py", hash: "h1" },
      { relPath: "b.py", hash: "h3" },
    ];
    expect(contentStateKey(changed)).not.toBe(contentStateKey(state));
    expect(contentStateKey([...state].reverse())).not.toBe(contentStateKey(state));
    const graph = buildTagGraph([...fileTags("a.py", "alpha").tags, ...fileTags("b.py", "other").tags]);
    const cache = await openTagCache(dir);
    cache.storeGraph(contentStateKey(state), graph);
    await cache.save();
    const again = await openTagCache(dir);
    expect(again.graph(contentStateKey(state))).toEqual(graph);
    expect(again.graph(contentStateKey(changed))).toBeNull();
  });

  test("warm builds (graph from the cache) give exactly the cold results; an edit re-ranks from fresh tags", async () => {
    const root = path.join(dir, "repo");
    await cp(SAMPLE, root, { recursive: true });
    const files = await listRepoFiles(root);
    const request = { root, files, mentionedIdents: ["park_car"], chatFiles: ["src/app.tsx"] };
    const cold = await buildRepoMap({ ...request, cacheDir: null });
    await buildRepoMap({ ...request, mentionedIdents: ["unrelated"] });
    const warm = await buildRepoMap(request);
    expect(warm.stats.parsed).toBe(0);
    expect([warm.text, warm.rankedFiles, warm.stats.tokens]).toEqual([cold.text, cold.rankedFiles, cold.stats.tokens]);

    await appendFile(path.join(root, "go/server.go"), "\nfunc park_car() {}\n");
    const edited = await buildRepoMap(request);
    const editedCold = await buildRepoMap({ ...request, cacheDir: null });
    expect(edited.stats.parsed).toBe(1);
    expect([edited.text, edited.rankedFiles]).toEqual([editedCold.text, editedCold.rankedFiles]);
    expect(edited.text).toContain("│func park_car() {}");
  });

  test("a cache file that is a symbolic link is not read (a checkout could commit one where the cache lives)", async () => {
    const elsewhere = path.join(dir, "elsewhere");
    const real = await openTagCache(elsewhere);
    real.store("a.py", "h1", { size: 10, mtimeMs: 5 }, encodeFileTags(fileTags("a.py", "alpha")));
    await real.save();
    real.close();
    const linked = path.join(dir, "linked");
    await mkdir(linked);
    await symlink(path.join(elsewhere, "tags.bin"), path.join(linked, "tags.bin"));
    expect((await openTagCache(elsewhere)).byStat("a.py", { size: 10, mtimeMs: 5 })?.hash).toBe("h1");
    expect((await openTagCache(linked)).byStat("a.py", { size: 10, mtimeMs: 5 })).toBeNull();
  });
});
