import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap } from "../../src/repomap/build-repo-map.js";
import { defaultThreads } from "../../src/repomap/extractor-pool.js";
import { closeSharedExtractorPools, leaseExtractorPool } from "../../src/repomap/shared-extractor-pool.js";

// Its own file: jest gives each file fresh modules, so no shared pool runs before these tests.
let root: string;
const files: string[] = [];
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cold-pool-"));
  await mkdir(path.join(root, "lib"));
  for (let i = 0; i < 100; i++) {
    await writeFile(path.join(root, `lib/m${i}.py`), `def make${i}():\n    return make${(i + 1) % 100}()\n`);
    files.push(`lib/m${i}.py`);
  }
  await loadTokenizer();
});
afterAll(async () => {
  await closeSharedExtractorPools();
  await rm(root, { recursive: true, force: true });
});

describe("worker threads for a map with the default thread count", () => {
  const threads = defaultThreads();
  const build = () => buildRepoMap({ root, files, cacheDir: null });

  it("starts none for a hundred files when no pool runs (a job process's first map): this thread parses them", async () => {
    const map = await build();
    expect(map.stats.parsed).toBe(100);
    expect(map.stats.threads).toBe(0);
  });

  it("uses the process's pool when one is already running, and an explicit thread count as before", async () => {
    if (threads === 0) return; // one core: no workers by default
    const lease = leaseExtractorPool(threads);
    try {
      expect((await build()).stats.threads).toBe(threads);
    } finally {
      lease.release();
    }
    await closeSharedExtractorPools();
    expect((await buildRepoMap({ root, files, cacheDir: null, threads: 1 })).stats.threads).toBe(1);
  });
});
