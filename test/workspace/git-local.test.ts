import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { GitError, HookRejectedError, NothingToCommitError } from "../../src/workspace/git-errors.js";
import { exec, makeRepo, sh, writeFiles } from "./git-fixtures.js";

const bot = { name: "aider-bot[bot]", email: "bot@example.com" };
const git = createGit(exec, bot);

describe("git on a local checkout", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeRepo({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", ".gitignore": "*.log\n" });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("commits only the given paths (new, modified, deleted); the user's other changes stay as they were", async () => {
    await writeFiles(dir, {
      "a.txt": "A\n",
      "b.txt": "user's staged change\n",
      "c.txt": "user's unstaged change\n",
      "n/new.txt": "1\n2\n",
    });
    await sh(dir, ["add", "b.txt"]);
    await writeFiles(dir, { "user-notes.txt": "mine\n" });
    await rm(path.join(dir, ".gitignore"));
    const result = await git.commit(dir, { paths: ["a.txt", "n/new.txt", ".gitignore"], subject: "feat: change a" });

    expect(result.subject).toBe("feat: change a");
    expect(result.stats).toEqual(
      expect.arrayContaining([
        { path: "a.txt", added: 1, removed: 1 },
        { path: "n/new.txt", added: 2, removed: 0 },
        { path: ".gitignore", added: 0, removed: 1 },
      ]),
    );
    expect(result.stats).toHaveLength(3);
    expect((await sh(dir, ["show", "--name-only", "--format=", "HEAD"])).trim().split("\n").sort()).toEqual([
      ".gitignore",
      "a.txt",
      "n/new.txt",
    ]);
    const status = await git.statusPorcelain(dir);
    expect(status).toEqual(
      expect.arrayContaining([
        { index: "M", worktree: " ", path: "b.txt" },
        { index: " ", worktree: "M", path: "c.txt" },
        { index: "?", worktree: "?", path: "user-notes.txt" },
      ]),
    );
    expect(status).toHaveLength(3);
  });

  it("writes subject, body and parseable trailers; author as asked, committer the bot", async () => {
    await writeFiles(dir, { "a.txt": "A\n" });
    await git.commit(dir, {
      paths: ["a.txt"],
      subject: "feat: change a",
      body: "# Why\nBecause.",
      trailers: ["Co-authored-by: Ann <1+ann@users.noreply.github.com>", "Aider-Bot-Run: r1"],
      author: { name: "Ann", email: "1+ann@users.noreply.github.com" },
    });
    const trailers = await sh(dir, ["log", "-1", "--format=%(trailers:only,unfold)"]);
    expect(trailers.trim().split("\n")).toEqual([
      "Co-authored-by: Ann <1+ann@users.noreply.github.com>",
      "Aider-Bot-Run: r1",
    ]);
    expect(await sh(dir, ["log", "-1", "--format=%B"])).toBe(
      "feat: change a\n\n# Why\nBecause.\n\nCo-authored-by: Ann <1+ann@users.noreply.github.com>\nAider-Bot-Run: r1\n\n",
    );
    expect((await sh(dir, ["log", "-1", "--format=%an <%ae>|%cn <%ce>"])).trim()).toBe(
      "Ann <1+ann@users.noreply.github.com>|aider-bot[bot] <bot@example.com>",
    );
    const [top] = await git.log(dir, 1);
    expect(top).toMatchObject({ author: "Ann", subject: "feat: change a" });
  });

  it("without a configured committer uses the repository's identity, else the bot default", async () => {
    const plain = createGit(exec);
    await writeFiles(dir, { "a.txt": "A\n" });
    await sh(dir, ["config", "user.name", "Local User"]);
    await sh(dir, ["config", "user.email", "local@example.com"]);
    await plain.commit(dir, { paths: ["a.txt"], subject: "fix: one" });
    expect((await sh(dir, ["log", "-1", "--format=%an|%cn"])).trim()).toBe("Local User|Local User");
    await sh(dir, ["config", "--unset", "user.name"]);
    await sh(dir, ["config", "--unset", "user.email"]);
    await writeFiles(dir, { "a.txt": "AA\n" });
    // An empty HOME: no global identity can leak in.
    const isolated = createGit({
      run: (req) => exec.run({ ...req, env: { ...req.env, HOME: dir, XDG_CONFIG_HOME: dir } }),
    });
    await isolated.commit(dir, { paths: ["a.txt"], subject: "fix: two" });
    expect((await sh(dir, ["log", "-1", "--format=%an <%ae>"])).trim()).toBe(
      "aider-bot <aider-bot@users.noreply.github.com>",
    );
  });

  it("treats paths literally (a file named like a glob) and refuses to force ignored files in", async () => {
    await writeFiles(dir, { "*.txt": "star\n", "debug.log": "ignored\n" });
    const r = await git.commit(dir, { paths: ["*.txt", "debug.log"], subject: "chore: star" });
    expect(r.stats).toEqual([{ path: "*.txt", added: 1, removed: 0 }]);
    expect((await sh(dir, ["status", "--porcelain"])).trim()).toBe("");
  });

  it.each([[[] as string[]], [["a.txt"]], [["missing.txt"]], [["debug.log"]]])(
    "reports nothing to commit for %j",
    async (paths) => {
      await writeFiles(dir, { "debug.log": "ignored\n" });
      await expect(git.commit(dir, { paths, subject: "chore: nothing" })).rejects.toBeInstanceOf(NothingToCommitError);
    },
  );

  it("honours a failing pre-commit hook and surfaces its output; nothing is committed", async () => {
    const hook = path.join(dir, ".git", "hooks", "pre-commit");
    await writeFile(hook, "#!/bin/sh\necho 'lint says no: a.txt:1 bad'\nexit 1\n");
    await chmod(hook, 0o755);
    const before = await git.headSha(dir);
    await writeFiles(dir, { "a.txt": "b\n" });
    const err = await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookRejectedError);
    expect((err as Error).message).toContain("lint says no: a.txt:1 bad");
    expect(await git.headSha(dir)).toBe(before);
    await chmod(hook, 0o644);
  });

  it("reverts a commit as a new commit with trailers, and refuses on a dirty checkout", async () => {
    await writeFiles(dir, { "a.txt": "changed\n", "added.txt": "new\n" });
    const c = await git.commit(dir, { paths: ["a.txt", "added.txt"], subject: "feat: change" });
    const sha = await git.revertCommit(dir, c.sha, ["Aider-Bot-Run: undo-1"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
    await expect(readFile(path.join(dir, "added.txt"))).rejects.toThrow();
    const [top] = await git.log(dir, 1);
    expect(top!.sha).toBe(sha);
    expect(top!.message).toBe(`Revert "feat: change"\n\nThis reverts commit ${c.sha}.\n\nAider-Bot-Run: undo-1`);
    expect(await git.isAncestor(dir, c.sha, sha)).toBe(true);

    await writeFiles(dir, { "b.txt": "dirty\n" });
    const err = await git.revertCommit(dir, c.sha).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect((err as Error).message).toMatch(/uncommitted changes[\s\S]*b\.txt/);
    expect(await git.headSha(dir)).toBe(sha);
  });

  it("a conflicting revert fails cleanly and leaves the checkout as it was", async () => {
    await writeFiles(dir, { "a.txt": "one\n" });
    const first = await git.commit(dir, { paths: ["a.txt"], subject: "feat: one" });
    await writeFiles(dir, { "a.txt": "two\n" });
    const second = await git.commit(dir, { paths: ["a.txt"], subject: "feat: two" });
    await expect(git.revertCommit(dir, first.sha)).rejects.toThrow(/Reverting .* failed/);
    expect(await git.headSha(dir)).toBe(second.sha);
    expect(await git.statusPorcelain(dir)).toEqual([]);
  });

  it("refuses to commit an edited path a script swapped for a link leading outside; a link to a file inside is committed", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), "commit-outside-"));
    try {
      await writeFile(path.join(outside, "app.pem"), "key\n");
      const head = await git.headSha(dir);
      await symlink(path.join(outside, "app.pem"), path.join(dir, "notes.py"));
      await writeFiles(dir, { "a.txt": "A\n" });
      await expect(git.commit(dir, { paths: ["a.txt", "notes.py"], subject: "feat: notes" })).rejects.toThrow(
        /Refused to commit: `notes.py` is a symbolic link leading outside the repository/,
      );
      expect(await git.headSha(dir)).toBe(head);
      await rm(path.join(dir, "notes.py"));
      await symlink("b.txt", path.join(dir, "notes.py"));
      const done = await git.commit(dir, { paths: ["a.txt", "notes.py"], subject: "feat: notes" });
      expect(done.stats).toEqual(expect.arrayContaining([{ path: "notes.py", added: 1, removed: 0 }]));
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("diff stats and diff text of the work tree include new files without touching the index", async () => {
    await writeFiles(dir, { "a.txt": "a\nmore\n", "fresh.txt": "x\ny\nz" });
    expect(await git.diffStats(dir, "HEAD", undefined, ["a.txt", "fresh.txt"])).toEqual([
      { path: "a.txt", added: 1, removed: 0 },
      { path: "fresh.txt", added: 3, removed: 0 },
    ]);
    const text = await git.diffText(dir, ["a.txt", "fresh.txt"]);
    expect(text.startsWith("Added fresh.txt\n")).toBe(true);
    expect(text).toContain("+more");
    expect(text).toContain("+z");
    expect(await git.statusPorcelain(dir)).toEqual(
      expect.arrayContaining([
        { index: "?", worktree: "?", path: "fresh.txt" },
        { index: " ", worktree: "M", path: "a.txt" },
      ]),
    );
  });

  it("knows branches, ancestry and history", async () => {
    const base = await git.headSha(dir);
    expect(await git.currentBranch(dir)).toBe("main");
    await git.checkoutNewBranch(dir, "aider/issue-7");
    expect(await git.currentBranch(dir)).toBe("aider/issue-7");
    await writeFiles(dir, { "a.txt": "x\n" });
    const c = await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" });
    expect(await git.isAncestor(dir, base, c.sha)).toBe(true);
    expect(await git.isAncestor(dir, c.sha, base)).toBe(false);
    await expect(git.isAncestor(dir, "no-such-rev", base)).rejects.toBeInstanceOf(GitError);
    expect((await git.log(dir, 5)).map((e) => e.subject)).toEqual(["fix: x", "Initial commit"]);
    await sh(dir, ["checkout", "-q", "--detach"]);
    expect(await git.currentBranch(dir)).toBeNull();
  });
});

describe("git on a repository without commits", () => {
  it("commits the first files and reports their stats", async () => {
    const dir = await makeRepo({ "seed.txt": "s\n" });
    try {
      await sh(dir, ["checkout", "-q", "--orphan", "fresh"]);
      await sh(dir, ["rm", "-q", "--cached", "seed.txt"]);
      await writeFiles(dir, { "first.txt": "1\n" });
      expect(await git.diffStats(dir, "HEAD", undefined, ["first.txt"])).toEqual([
        { path: "first.txt", added: 1, removed: 0 },
      ]);
      const r = await git.commit(dir, { paths: ["first.txt"], subject: "feat: first" });
      expect(r.stats).toEqual([{ path: "first.txt", added: 1, removed: 0 }]);
      expect((await sh(dir, ["status", "--porcelain"])).trim()).toBe("?? seed.txt");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
