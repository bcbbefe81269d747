import { chmod, mkdtemp, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { contentHash } from "../../src/repomap/tag-cache.js";
import { cleanBlobIds, gitContentIds } from "../../src/workspace/git-content-ids.js";
import { exec, makeRepo, sh } from "./git-fixtures.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe("gitContentIds", () => {
  test("clean tracked files get git's blob id; edited, deleted, untracked files and symlinks get none", async () => {
    const dir = await makeRepo({
      "src/a.ts": "export const a = 1;\n",
      "src/b.py": "def b():\n    pass\n",
      "c.rb": "x = 1\n",
      "bin/run.sh": "#!/bin/sh\n",
    });
    dirs.push(dir);
    await chmod(path.join(dir, "bin/run.sh"), 0o755);
    await sh(dir, ["add", "bin/run.sh"]);
    await symlink("src/a.ts", path.join(dir, "link.ts"));
    await sh(dir, ["add", "link.ts"]);
    await writeFile(path.join(dir, "src/b.py"), "def b():\n    return 2\n");
    await rm(path.join(dir, "c.rb"));
    await writeFile(path.join(dir, "new.ts"), "export const n = 1;\n");
    const ids = await gitContentIds(exec, dir);
    expect([...ids.keys()].sort()).toEqual(["bin/run.sh", "src/a.ts"]);
    expect(ids.get("src/a.ts")).toBe((await sh(dir, ["hash-object", "src/a.ts"])).trim());
    // Our own content hash is git's blob id, so ids from git and hashes of read files are the same keys.
    expect(ids.get("src/a.ts")).toBe(contentHash("export const a = 1;\n"));
  });

  test("a touched file keeps its id; a same-size edit whose mtime was put back loses it (git compares the content)", async () => {
    const dir = await makeRepo({ "touched.ts": "export const t = 1;\n", "edited.ts": "export const e = 1;\n" });
    dirs.push(dir);
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(dir, "touched.ts"), later, later);
    const before = await stat(path.join(dir, "edited.ts"));
    await writeFile(path.join(dir, "edited.ts"), "export const e = 2;\n");
    await utimes(path.join(dir, "edited.ts"), before.atime, before.mtime);
    const ids = await gitContentIds(exec, dir);
    expect(ids.get("touched.ts")).toBe(contentHash("export const t = 1;\n"));
    expect(ids.has("edited.ts")).toBe(false);
  });

  test("outside a git checkout: an empty map, no error", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "no-git-"));
    dirs.push(dir);
    await writeFile(path.join(dir, "a.ts"), "export const a = 1;\n");
    expect((await gitContentIds(exec, dir)).size).toBe(0);
  });
});

describe("cleanBlobIds", () => {
  const id = (c: string) => c.repeat(40);
  /** `git ls-files -s -z` entries. */
  const ls = (...entries: [string, string, number, string][]) =>
    entries.map(([m, i, s, p]) => `${m} ${i} ${s}\t${p}\0`).join("");
  test.each([
    ["a regular file", ls(["100644", id("a"), 0, "a.ts"]), "", { "a.ts": id("a") }],
    ["an executable", ls(["100755", id("b"), 0, "x.sh"]), "", { "x.sh": id("b") }],
    [
      "a path with spaces and a tab",
      ls(["100644", id("c"), 0, "some dir/a\tb.ts"]),
      "",
      { "some dir/a\tb.ts": id("c") },
    ],
    [
      "a changed file",
      ls(["100644", id("a"), 0, "a.ts"], ["100644", id("d"), 0, "b.ts"]),
      "a.ts\0",
      { "b.ts": id("d") },
    ],
    ["a symlink", ls(["120000", id("e"), 0, "link"]), "", {}],
    ["a submodule", ls(["160000", id("f"), 0, "vendor/lib"]), "", {}],
    [
      "a conflict (stages 1-3)",
      ls(["100644", id("1"), 1, "c.ts"], ["100644", id("2"), 2, "c.ts"], ["100644", id("3"), 3, "c.ts"]),
      "c.ts\0",
      {},
    ],
    ["nothing", "", "", {}],
  ])("%s", (_name, staged, changed, expected) => {
    expect(Object.fromEntries(cleanBlobIds(staged, changed))).toEqual(expected);
  });
});
