import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { warmRepoMapCache } from "../../src/repomap/warm-repo-map-cache.js";

describe("warmRepoMapCache", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "warm-map-"));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("reads every usable repository cache under <cacheRoot>/repomap and skips foreign or outdated files", async () => {
    const repo = path.join(root, "repo");
    await mkdir(repo);
    await writeFile(path.join(repo, "a.ts"), "export function alpha(): number {\n  return 1;\n}\n");
    await writeFile(path.join(repo, "b.ts"), 'import { alpha } from "./a.js";\nexport const beta = alpha();\n');
    const cacheRoot = path.join(root, "cache");
    const good = path.join(cacheRoot, "repomap", "acme", "widgets");
    await buildRepoMap({ root: repo, files: ["a.ts", "b.ts"], chatFiles: [], mentionedFiles: [], mentionedIdents: [], mapTokens: 1024, cacheDir: good, threads: 0 });
    const bad = path.join(cacheRoot, "repomap", "acme", "junk");
    await mkdir(bad, { recursive: true });
    await writeFile(path.join(bad, "tags.bin"), "not a tag cache at all");

    const result = await warmRepoMapCache({ cacheRoot });
    expect(result).toEqual({ caches: 1, bytes: (await stat(path.join(good, "tags.bin"))).size });
  });

  it("finds nothing, without failing, when there is no cache yet", async () => {
    expect(await warmRepoMapCache({ cacheRoot: path.join(root, "absent") })).toEqual({ caches: 0, bytes: 0 });
  });
});
