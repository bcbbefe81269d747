import { chmod, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { cleanupWhitespace, headCommit, readCommitAhead } from "../../src/workspace/git-commit-ahead.js";
import { createGitRunner } from "../../src/workspace/git-runner.js";
import { readCommitChanges, type CommitChanges } from "../../src/workspace/read-commit-changes.js";
import { exec, makeRepo, serveRemote, sh, writeFiles } from "./git-fixtures.js";

const run = createGitRunner(exec);
const MAX = 1_000_000;

/** What a commit is, for comparing the one read ahead with the one git made: entries by path, contents as text. */
function shape(c: CommitChanges) {
  return {
    parent: c.parent,
    message: c.message,
    bytes: c.bytes,
    entries: [...c.entries].sort((a, b) => a.path.localeCompare(b.path)),
    contents: Object.fromEntries([...c.contents].map(([p, b]) => [p, b.toString("utf8")]).sort()),
  };
}

/** Tracked and new paths among `paths`, as prepareCommit sorts them (git's own listing). */
async function sorted(dir: string, paths: string[]) {
  const out = await sh(dir, ["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard", "--", ...paths]);
  const tracked: string[] = [];
  const untracked: string[] = [];
  for (const e of out.split("\0").filter(Boolean)) (e[0] === "?" ? untracked : tracked).push(e.slice(2));
  return { tracked, untracked };
}

async function executables(dir: string): Promise<Set<string>> {
  const out = await sh(dir, ["ls-files", "-s", "-z"]);
  return new Set(
    out
      .split("\0")
      .filter((e) => e.startsWith("100755 "))
      .map((e) => e.slice(e.indexOf("\t") + 1)),
  );
}

describe("readCommitAhead: the commit git is about to make, read without git", () => {
  let dir = "";
  let home = "";
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "ahead-home-"));
  });
  afterEach(async () => {
    for (const d of [dir, home]) if (d) await rm(d, { recursive: true, force: true });
    dir = "";
  });

  const ahead = async (paths: string[], message: string, extra: { home?: string } = {}) =>
    readCommitAhead({
      dir,
      ...(await sorted(dir, paths)),
      message,
      executables: await executables(dir),
      maxBytes: MAX,
      home: extra.home ?? home,
    });

  it("is, entry for entry and byte for byte, the commit git then makes (modified, new, deleted, executable, nested)", async () => {
    dir = await makeRepo({
      "a.txt": "one\n",
      "gone.txt": "bye\n",
      "bin/run.sh": "#!/bin/sh\necho 1\n",
      "d/e/f.md": "f\n",
    });
    await chmod(path.join(dir, "bin/run.sh"), 0o755);
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "exec"]);
    await writeFiles(dir, {
      "a.txt": "one\r\ntwo — ünïcode\n",
      "bin/run.sh": "#!/bin/sh\necho 2\n",
      "d/e/f.md": "F\n",
      "new dir/n.ts": "export const n = 1;\n",
    });
    await unlink(path.join(dir, "gone.txt"));
    const paths = ["a.txt", "gone.txt", "bin/run.sh", "d/e/f.md", "new dir/n.ts"];
    const message =
      "\n\nfix: things   \n\n\n\nWhy it changed.\t\n\nCo-authored-by: ann <1+ann@users.noreply.github.com>\n\n";
    const read = await ahead(paths, message);
    expect(read).not.toBeNull();

    await sh(dir, ["add", "--", "new dir/n.ts"]);
    await exec.run({
      command: "git",
      args: ["commit", "-q", "--cleanup=whitespace", "--file", "-", "--", ...paths],
      cwd: dir,
      input: message,
      env: { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" },
    });
    const sha = (await sh(dir, ["rev-parse", "HEAD"])).trim();
    const made = await readCommitChanges(run, dir, sha, MAX);
    expect(shape(read!)).toEqual(shape(made));
    expect(read!.entries.find((e) => e.path === "bin/run.sh")).toMatchObject({ srcMode: "100755", dstMode: "100755" });
  });

  it("cleans a message as `git commit --cleanup=whitespace` does", async () => {
    dir = await makeRepo({ "a.txt": "a\n" });
    for (const message of [
      "subject",
      "  \n\nsubject  \n\n\nbody line\t \n\n\n# a heading kept\n\n",
      "subject\r\n\r\nbody\r\n",
      "",
      "\n \n\t\n",
      "a\n\n\n\nb\n \nc",
    ]) {
      const r = await exec.run({ command: "git", args: ["stripspace"], cwd: dir, input: message });
      expect(cleanupWhitespace(message)).toBe(r.stdout);
    }
  });

  it("reads HEAD from a branch's loose ref, from packed-refs, and when detached", async () => {
    dir = await makeRepo({ "a.txt": "a\n" });
    const sha = (await sh(dir, ["rev-parse", "HEAD"])).trim();
    expect(headCommit(dir)).toBe(sha);
    await sh(dir, ["pack-refs", "--all"]);
    expect(headCommit(dir)).toBe(sha);
    await sh(dir, ["checkout", "-q", "--detach"]);
    expect(headCommit(dir)).toBe(sha);
    expect(headCommit(path.join(dir, "nowhere"))).toBeNull();
  });

  describe("is null wherever something besides git could decide the commit", () => {
    beforeEach(async () => {
      dir = await makeRepo({ "a.txt": "a\n", "src/deep/b.ts": "b\n" });
      await writeFiles(dir, { "a.txt": "A\n", "src/deep/b.ts": "B\n" });
    });
    const both = ["a.txt", "src/deep/b.ts"];

    it("reads it when nothing does (the control)", async () => {
      expect(await ahead(both, "fix: x")).not.toBeNull();
    });

    it.each([
      ["a pre-commit hook", ".git/hooks/pre-commit"],
      ["a commit-msg hook", ".git/hooks/commit-msg"],
      ["a reference-transaction hook", ".git/hooks/reference-transaction"],
      ["the repository's .gitattributes", ".gitattributes"],
      ["a .gitattributes in a folder on the way", "src/.gitattributes"],
      ["info/attributes", ".git/info/attributes"],
    ])("%s", async (_what, rel) => {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      expect(await ahead(both, "fix: x")).toBeNull();
    });

    it.each([
      ["core.hooksPath in the checkout's config", "core.hooksPath", "/tmp/hooks"],
      ["core.autocrlf in the checkout's config", "core.autocrlf", "input"],
      ["an include in the checkout's config", "include.path", "/tmp/other"],
    ])("%s", async (_what, key, value) => {
      await sh(dir, ["config", key, value]);
      expect(await ahead(both, "fix: x")).toBeNull();
    });

    it("the user's git configuration or attributes file in the HOME git runs with", async () => {
      await writeFile(path.join(home, ".gitconfig"), "[core]\n\thooksPath = /srv/hooks\n");
      expect(await ahead(both, "fix: x")).toBeNull();
      await rm(path.join(home, ".gitconfig"));
      await mkdir(path.join(home, ".config", "git"), { recursive: true });
      await writeFile(path.join(home, ".config", "git", "attributes"), "* text=auto\n");
      expect(await ahead(both, "fix: x")).toBeNull();
    });

    it("a committed path that is a symbolic link, or a .gitattributes being committed", async () => {
      await rm(path.join(dir, "a.txt"));
      await symlink("src/deep/b.ts", path.join(dir, "a.txt"));
      expect(await ahead(both, "fix: x")).toBeNull();
      await rm(path.join(dir, "a.txt"));
      await writeFile(path.join(dir, "a.txt"), "A\n");
      await writeFile(path.join(dir, ".gitattributes"), "");
      expect(await ahead([...both, ".gitattributes"], "fix: x")).toBeNull();
    });

    it("contents past the limit, or executables not known", async () => {
      const sortedPaths = await sorted(dir, both);
      const base = { dir, ...sortedPaths, message: "m", home, executables: new Set<string>() };
      expect(readCommitAhead({ ...base, maxBytes: 3 })).toBeNull();
      expect(readCommitAhead({ ...base, maxBytes: MAX, executables: null })).toBeNull();
    });
  });
});

describe("createGit's prepareCommit reads ahead only in a checkout it cloned", () => {
  const token = "ghs_aheadtoken000000000000000000000000";
  let remote: Awaited<ReturnType<typeof serveRemote>> | null = null;
  afterEach(async () => {
    await remote?.close();
    remote = null;
  });

  it("offers the commit in its clone when told the HOME git runs with, and not in a checkout it did not make", async () => {
    remote = await serveRemote("ahead-", token, { "a.txt": "a\n" });
    const home = await mkdtemp(path.join(os.tmpdir(), "ahead-home-"));
    const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" }, { readsAhead: { home } });
    const checkout = path.join(remote.tmp, "checkout");
    await git.clone({ url: remote.url, branch: "main", dir: checkout, token });
    await writeFile(path.join(checkout, "a.txt"), "A\n");
    const prepared = await git.prepareCommit(checkout, ["a.txt"], new Set(["a.txt"]), undefined, new Set());
    const read = await prepared.ahead!({ subject: "fix: a" }, MAX);
    expect(read?.contents.get("a.txt")?.toString()).toBe("A\n");
    expect(read?.message).toBe("fix: a\n");
    const made = await prepared.commit({ subject: "fix: a" });
    expect(read?.parent).toBe((await sh(checkout, ["rev-parse", "HEAD^"])).trim());
    expect(made.sha).toBe((await sh(checkout, ["rev-parse", "HEAD"])).trim());

    // Not told which HOME git runs with (the CLI, the Action): never.
    await writeFile(path.join(checkout, "a.txt"), "AA\n");
    const untold = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });
    expect(
      (await untold.prepareCommit(checkout, ["a.txt"], new Set(["a.txt"]), undefined, new Set())).ahead,
    ).toBeUndefined();
    await rm(home, { recursive: true, force: true });

    const own = await makeRepo({ "a.txt": "a\n" });
    try {
      await writeFile(path.join(own, "a.txt"), "A\n");
      const there = await git.prepareCommit(own, ["a.txt"], new Set(["a.txt"]), undefined, new Set());
      expect(there.ahead).toBeUndefined();
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });
});
