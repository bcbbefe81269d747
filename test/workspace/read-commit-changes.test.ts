import { chmod, rm, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createGitRunner } from "../../src/workspace/git-runner.js";
import { parseRawDiff, readCommitChanges } from "../../src/workspace/read-commit-changes.js";
import { planApiCommit } from "../../src/run/publish/plan-api-commit.js";
import { exec, makeRepo, sh, writeFiles } from "./git-fixtures.js";

const run = createGitRunner(exec);

describe("readCommitChanges → planApiCommit (real git)", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const commit = async (message: string) => {
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", message]);
    return (await sh(dir, ["rev-parse", "HEAD"])).trim();
  };

  it("reads additions, modifications and deletions with their exact bytes, the parent and the message", async () => {
    dir = await makeRepo({ "a.txt": "one\n", "gone.txt": "bye\n", "dir/b.md": "b\n" });
    const parent = (await sh(dir, ["rev-parse", "HEAD"])).trim();
    await writeFiles(dir, { "a.txt": "one\r\ntwo — ünïcode\n", "dir/new file.ts": "export const x = 1;\n" });
    await unlink(path.join(dir, "gone.txt"));
    const sha = await commit("fix: things\n\nWhy it changed.\n\nCo-authored-by: ann <1+ann@users.noreply.github.com>");
    const changes = await readCommitChanges(run, dir, sha, 1_000_000);
    expect(changes.parent).toBe(parent);
    const plan = planApiCommit(changes, "feature");
    expect(plan.kind).toBe("api");
    if (plan.kind !== "api") return;
    expect(plan.request.expectedHeadOid).toBe(parent);
    expect(plan.request.message).toEqual({
      headline: "fix: things",
      body: "Why it changed.\n\nCo-authored-by: ann <1+ann@users.noreply.github.com>",
    });
    const added = Object.fromEntries(
      plan.request.fileChanges.additions.map((a) => [a.path, Buffer.from(a.contents, "base64").toString("utf8")]),
    );
    expect(added).toEqual({ "a.txt": "one\r\ntwo — ünïcode\n", "dir/new file.ts": "export const x = 1;\n" });
    expect(plan.request.fileChanges.deletions).toEqual([{ path: "gone.txt" }]);
  });

  const countingRun = (commands: string[]): typeof run => {
    return (cwd, args, options) => {
      commands.push(args[0] ?? "");
      return run(cwd, args, options);
    };
  };

  it("reads a commit just made in one git process (diff-tree; the bytes from the work tree), and refuses a root commit", async () => {
    dir = await makeRepo({ "a.txt": "one\n" });
    await writeFiles(dir, { "a.txt": "two\n", "new.txt": "new — ü\n" });
    const sha = await commit("fix: two");
    const commands: string[] = [];
    const changes = await readCommitChanges(countingRun(commands), dir, sha, 1_000_000);
    expect(changes.message).toBe("fix: two\n");
    expect(Object.fromEntries([...changes.contents].map(([p, b]) => [p, b.toString("utf8")]))).toEqual({
      "a.txt": "two\n",
      "new.txt": "new — ü\n",
    });
    expect(changes.bytes).toBe(4 + Buffer.byteLength("new — ü\n"));
    expect(commands).toEqual(["diff-tree"]);
    const root = (await sh(dir, ["rev-list", "--max-parents=0", "HEAD"])).trim();
    await expect(readCommitChanges(run, dir, root, 1_000_000)).rejects.toThrow(/has no parent commit/);
  });

  it("asks git (one cat-file for them all) for the files whose work-tree bytes are not what was committed", async () => {
    dir = await makeRepo({ "a.txt": "one\n", "b.txt": "b\n" });
    await writeFiles(dir, { "a.txt": "committed a\n", "b.txt": "committed b\n", "c.txt": "committed c\n" });
    const sha = await commit("three");
    // Changed after the commit, and one replaced by a directory: the work tree no longer has what was committed.
    await writeFiles(dir, { "a.txt": "edited since\n" });
    await rm(path.join(dir, "b.txt"));
    await writeFiles(dir, { "b.txt/inner": "x\n" });
    const commands: string[] = [];
    const changes = await readCommitChanges(countingRun(commands), dir, sha, 1_000_000);
    expect(Object.fromEntries([...changes.contents].map(([p, b]) => [p, b.toString("utf8")]))).toEqual({
      "a.txt": "committed a\n",
      "b.txt": "committed b\n",
      "c.txt": "committed c\n",
    });
    expect(changes.bytes).toBe(3 * Buffer.byteLength("committed a\n"));
    expect(commands).toEqual(["diff-tree", "cat-file"]);
  });

  it("reads the work tree only through the confined reader: a folder swapped for a symlink after the commit is asked of git", async () => {
    dir = await makeRepo({ "sub/a.txt": "one\n" });
    await writeFiles(dir, { "sub/a.txt": "committed\n" });
    const sha = await commit("edit");
    // The same bytes outside the checkout, reached through `sub` once it is a link: its blob id checks, so only the
    // reader's refusal keeps the app from reading outside the checkout.
    const outside = `${dir}-outside`;
    await writeFiles(outside, { "a.txt": "committed\n" });
    await rm(path.join(dir, "sub"), { recursive: true });
    await symlink(outside, path.join(dir, "sub"));
    const commands: string[] = [];
    try {
      const changes = await readCommitChanges(countingRun(commands), dir, sha, 1_000_000);
      expect(changes.contents.get("sub/a.txt")?.toString("utf8")).toBe("committed\n");
      expect(commands).toEqual(["diff-tree", "cat-file"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("reads every text file of one batch exactly, also those after a file that is not UTF-8", async () => {
    dir = await makeRepo({ "keep.txt": "k\n" });
    await writeFile(path.join(dir, "a-bin.dat"), Buffer.from([0xff, 0x0a, 0xfe, 0x80, 0x0a]));
    await writeFiles(dir, { "b.txt": "blob 12\nafter the binary — ü\n", "c.txt": "", "d.txt": "last\n" });
    const sha = await commit("mixed");
    const changes = await readCommitChanges(run, dir, sha, 1_000_000);
    expect(changes.bytes).toBe(5 + Buffer.byteLength("blob 12\nafter the binary — ü\n") + 0 + 5);
    expect(Object.fromEntries([...changes.contents].map(([p, b]) => [p, b.toString("utf8")]))).toEqual({
      "b.txt": "blob 12\nafter the binary — ü\n",
      "c.txt": "",
      "d.txt": "last\n",
    });
  });

  it("falls back to git for a symbolic link, an exec-bit change, a new executable, a binary file and a change over the limit", async () => {
    dir = await makeRepo({ "run.sh": "echo\n", "a.txt": "a\n" });
    await symlink("a.txt", path.join(dir, "link"));
    let sha = await commit("add link");
    expect(planApiCommit(await readCommitChanges(run, dir, sha, 1e6), "b")).toEqual({
      kind: "git",
      reason: "`link` is a symbolic link",
    });

    await chmod(path.join(dir, "run.sh"), 0o755);
    sha = await commit("chmod");
    expect(planApiCommit(await readCommitChanges(run, dir, sha, 1e6), "b")).toEqual({
      kind: "git",
      reason: "the mode of `run.sh` changes (100644 → 100755)",
    });

    await writeFile(path.join(dir, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    sha = await commit("tool");
    expect(planApiCommit(await readCommitChanges(run, dir, sha, 1e6), "b")).toEqual({
      kind: "git",
      reason: "`tool` is a new executable file",
    });

    await writeFile(path.join(dir, "img.bin"), Buffer.from([0x89, 0x50, 0x00, 0xff, 0xfe, 0x01]));
    sha = await commit("binary");
    const binary = await readCommitChanges(run, dir, sha, 1e6);
    expect(binary.contents.has("img.bin")).toBe(false);
    expect(planApiCommit(binary, "b")).toEqual({ kind: "git", reason: "`img.bin` is not UTF-8 text" });

    await writeFile(path.join(dir, "a.txt"), "x".repeat(5000));
    sha = await commit("big");
    const big = await readCommitChanges(run, dir, sha, 1000);
    expect(big.bytes).toBe(5000);
    expect(big.contents.size).toBe(0);
    expect(planApiCommit(big, "b", 1000)).toEqual({ kind: "git", reason: "the change is larger than 1000 bytes" });
  });

  it("deleting a symbolic link or an executable is a plain deletion", async () => {
    dir = await makeRepo({ "a.txt": "a\n" });
    await symlink("a.txt", path.join(dir, "link"));
    await writeFile(path.join(dir, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    await commit("add");
    await unlink(path.join(dir, "link"));
    await unlink(path.join(dir, "tool"));
    const sha = await commit("remove");
    const plan = planApiCommit(await readCommitChanges(run, dir, sha, 1e6), "b");
    expect(plan.kind === "api" && plan.request.fileChanges).toEqual({
      additions: [],
      deletions: [{ path: "link" }, { path: "tool" }],
    });
  });
});

describe("parseRawDiff", () => {
  it("reads -z raw output, names with spaces and newlines included", () => {
    const z =
      ":100644 100755 aaaa bbbb M\0run.sh\0:000000 100644 0000 cccc A\0a\nb c.txt\0:100644 000000 dddd 0000 D\0old\0";
    expect(parseRawDiff(z)).toEqual([
      { srcMode: "100644", dstMode: "100755", dstOid: "bbbb", status: "M", path: "run.sh" },
      { srcMode: "000000", dstMode: "100644", dstOid: "cccc", status: "A", path: "a\nb c.txt" },
      { srcMode: "100644", dstMode: "000000", dstOid: "0000", status: "D", path: "old" },
    ]);
  });
});
