import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "../../src/llm/count-tokens.js";
import { buildRepoMap, buildRepoMapFromObjects } from "../../src/repomap/build-repo-map.js";
import { listGitFiles } from "../../src/workspace/git-listing.js";
import { listTree } from "../../src/workspace/git-tree-listing.js";
import { readBlobs } from "../../src/workspace/read-blobs.js";
import { exec, sh, writeFiles } from "../workspace/git-fixtures.js";

const SAMPLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/repomap/sample");

/** The sample (with its `.aiderignore`) committed in a fresh repository; its HEAD. */
async function committedSample(root: string): Promise<string> {
  await cp(SAMPLE, root, { recursive: true });
  // Committed, and left out of the map by the sample's `.aiderignore` (vendor/).
  await writeFiles(root, { "vendor/thirdparty.ts": "export function vendoredHelper() { return 2; }\n" });
  await sh(root, ["init", "-q", "-b", "main"]);
  await sh(root, ["add", "-A"]);
  await sh(root, ["commit", "-q", "-m", "sample"]);
  return (await sh(root, ["rev-parse", "HEAD"])).trim();
}

describe("the repo map of a checkout whose files are not written yet (from git's objects)", () => {
  let root: string;
  let cacheDir: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "map-objects-"));
    cacheDir = await mkdtemp(path.join(os.tmpdir(), "map-objects-cache-"));
    await loadTokenizer();
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(cacheDir, { recursive: true, force: true });
  });

  const request = { text: "filter the todos by title", hintFiles: [] as string[] };

  it("is the map the written files give, cold and warm, with `.aiderignore` read from its blob", async () => {
    const head = await committedSample(root);
    const tree = (await listTree(exec, root, head))!;
    const read: string[][] = [];
    const objects = (ids: readonly string[]) => (read.push([...ids]), readBlobs(exec, root, ids));
    const fromTree = () =>
      buildRepoMapFromObjects({ root, files: tree.files, contentIds: tree.indexIds, objects, request, cacheDir });
    const fromObjects = await fromTree();
    // A second folder's cache: the written files' map, built as a run builds it once they are written.
    const written = (await listGitFiles(exec, root))!;
    const fromFiles = await buildRepoMap({
      root,
      files: written.files,
      contentIds: written.indexIds,
      modifiedSinceIds: Promise.resolve(written.modified),
      request,
      cacheDir: path.join(cacheDir, "other"),
    });
    expect(fromObjects).not.toBeNull();
    expect(fromObjects!.text).toBe(fromFiles.text);
    expect(fromObjects!.rankedFiles).toEqual(fromFiles.rankedFiles);
    expect(tree.files).toContain("vendor/thirdparty.ts");
    expect(fromObjects!.text).not.toContain("vendoredHelper");
    // Cold: `.aiderignore`, then every file the cache lacked, each asked for once.
    expect(read[0]).toEqual([tree.indexIds.get(".aiderignore")]);
    expect(read).toHaveLength(2);
    // Warm: the tags stored by the first build serve; only `.aiderignore` is read.
    read.length = 0;
    const warm = await fromTree();
    expect(warm!.text).toBe(fromFiles.text);
    expect(read).toHaveLength(1);
  });

  it("gives up (null) on a source file that is a link: only the written work tree says what it holds", async () => {
    await committedSample(root);
    await symlink("store.ts", path.join(root, "src", "store-link.ts"));
    await sh(root, ["add", "-A"]);
    await sh(root, ["commit", "-q", "-m", "link"]);
    const head = (await sh(root, ["rev-parse", "HEAD"])).trim();
    const tree = (await listTree(exec, root, head))!;
    expect(tree.files).toContain("src/store-link.ts");
    expect(
      await buildRepoMapFromObjects({
        root,
        files: tree.files,
        contentIds: tree.indexIds,
        objects: (ids) => readBlobs(exec, root, ids),
        cacheDir,
      }),
    ).toBeNull();
  });
});
