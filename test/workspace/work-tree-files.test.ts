import { mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { exec, makeRepo, sh } from "./git-fixtures.js";

describe("a checkout's files removed while GitHub makes the commit, and written again for a push with git", () => {
  const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });

  it("removes every file and folder but .git, never following a link out, and restores HEAD's files", async () => {
    const dir = await makeRepo({ "a.txt": "a\n", "src/b.txt": "b\n" });
    const outside = await mkdtemp(path.join(os.tmpdir(), "outside-"));
    await writeFile(path.join(outside, "keep.txt"), "keep\n");
    await symlink(outside, path.join(dir, "linked"));
    await writeFile(path.join(dir, "untracked.log"), "x\n");
    await writeFile(path.join(dir, "a.txt"), "a, committed\n");
    const { sha } = await git.commit(dir, { paths: ["a.txt"], subject: "change a" });
    await git.clearWorkTree(dir);
    expect(await readdir(dir)).toEqual([".git"]);
    expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("keep\n");
    await git.restoreWorkTree(dir);
    expect((await readdir(dir)).sort()).toEqual([".git", "a.txt", "src"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a, committed\n");
    expect(await readFile(path.join(dir, "src/b.txt"), "utf8")).toBe("b\n");
    expect((await sh(dir, ["rev-parse", "HEAD"])).trim()).toBe(sha);
    expect((await sh(dir, ["status", "--porcelain"])).trim()).toBe("");
  });
});
