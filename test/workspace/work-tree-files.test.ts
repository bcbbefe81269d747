import { mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { exec, makeRepo, seedBareRepo, sh, writeFiles } from "./git-fixtures.js";

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

  it("after a restore, a push to a branch that moved meanwhile is rebased on it, as before the files were removed", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "restore-push-"));
    const bare = await seedBareRepo(root, "app.git", { "a.txt": "a\n", "b.txt": "b\n" });
    const dir = path.join(root, "checkout");
    await sh(root, ["clone", "-q", bare, dir]);
    await writeFile(path.join(dir, "a.txt"), "a, ours\n");
    await git.commit(dir, { paths: ["a.txt"], subject: "ours" });
    await git.clearWorkTree(dir);
    // Someone pushes to the branch while GitHub's API is failing.
    const other = path.join(root, "other");
    await sh(root, ["clone", "-q", bare, other]);
    await writeFiles(other, { "b.txt": "b, theirs\n" });
    await sh(other, ["commit", "-q", "-am", "theirs"]);
    await sh(other, ["push", "-q", "origin", "main"]);
    await git.restoreWorkTree(dir);
    await git.push({ dir, branch: "main" });
    const log = (await sh(bare, ["log", "--format=%s", "main"])).trim().split("\n");
    expect(log).toEqual(["ours", "theirs", "Initial commit"]);
    expect(await sh(bare, ["show", "main:a.txt"])).toBe("a, ours\n");
    expect(await sh(bare, ["show", "main:b.txt"])).toBe("b, theirs\n");
  });
});
