import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { createGit } from "../../src/workspace/create-git.js";
import { HookRejectedError, NothingToCommitError } from "../../src/workspace/git-errors.js";
import { composeDiffText } from "../../src/workspace/git-prepared-commit.js";
import { exec, makeRepo, seedBareRepo, sh, writeFiles } from "./git-fixtures.js";

const bot = { name: "aider-bot[bot]", email: "bot@example.com" };

/** An exec that records every git subcommand it starts (the word after the `-c` options). */
function countingExec(): { exec: Exec; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    exec: {
      run(req: ExecRequest) {
        if (req.command === "git") {
          const args = req.args ?? [];
          let i = 0;
          while (args[i] === "-c") i += 2;
          calls.push(args[i] ?? "");
        }
        return exec.run(req);
      },
    },
  };
}

describe("prepareCommit: the commit path in a fixed number of git processes", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeRepo({ "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "bye\n", ".gitignore": "*.log\n" });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("gives the same diff text as diffText, and commits what commit would, with any number of new files", async () => {
    const news = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`new/f${String(i).padStart(2, "0")}.txt`, `line ${i}\nsecond\n`]));
    await writeFiles(dir, { "a.txt": "A\n", ...news, "skip.log": "ignored\n", "zz-last.txt": "no newline" });
    await rm(path.join(dir, "gone.txt"));
    const paths = ["a.txt", "gone.txt", "skip.log", "never-existed.txt", "zz-last.txt", ...Object.keys(news)];
    const expected = await createGit(exec, bot).diffText(dir, paths);

    const counted = countingExec();
    const git = createGit(counted.exec, bot);
    const prepared = await git.prepareCommit(dir, paths);
    expect(prepared.diff).toBe(expected);
    const result = await prepared.commit({ subject: "feat: many files" });

    // ls-files, add (the new files only), diff, commit, diff-tree: not one process per new file.
    expect(counted.calls).toEqual(["ls-files", "add", "diff", "commit", "diff-tree"]);
    expect(result.sha).toBe((await sh(dir, ["rev-parse", "HEAD"])).trim());
    expect(result.subject).toBe("feat: many files");
    expect(result.stats).toHaveLength(28);
    expect(result.stats).toEqual(
      expect.arrayContaining([
        { path: "a.txt", added: 1, removed: 1 },
        { path: "gone.txt", added: 0, removed: 1 },
        { path: "new/f07.txt", added: 2, removed: 0 },
      ]),
    );
    const committed = (await sh(dir, ["show", "--name-only", "--format=", "HEAD"])).trim().split("\n");
    expect(committed).not.toContain("skip.log");
    expect(committed).toHaveLength(28);
  });

  it("costs four processes when only tracked files changed (no add)", async () => {
    await writeFiles(dir, { "a.txt": "A\n" });
    const counted = countingExec();
    const prepared = await createGit(counted.exec, bot).prepareCommit(dir, ["a.txt"]);
    await prepared.commit({ subject: "fix: a" });
    expect(counted.calls).toEqual(["ls-files", "diff", "commit", "diff-tree"]);
  });

  it("says nothing changed with an empty diff and leaves the index alone; a commit then refuses", async () => {
    await writeFiles(dir, { "b.txt": "b\n" });
    const prepared = await createGit(exec, bot).prepareCommit(dir, ["b.txt", "skip.log"]);
    expect(prepared.diff).toBe("");
    await expect(prepared.commit({ subject: "x" })).rejects.toBeInstanceOf(NothingToCommitError);
    expect((await sh(dir, ["status", "--porcelain"])).trim()).toBe("");
  });

  it("reports a hook's refusal as before", async () => {
    await writeFiles(dir, { "a.txt": "A\n" });
    const hook = path.join(dir, ".git/hooks/pre-commit");
    await writeFile(hook, "#!/bin/sh\necho 'lint says no' >&2\nexit 1\n");
    await chmod(hook, 0o755);
    const prepared = await createGit(exec, bot).prepareCommit(dir, ["a.txt"]);
    const err = await prepared.commit({ subject: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookRejectedError);
    expect((err as Error).message).toContain("lint says no");
  });

  it("keeps a new file with a name git quotes in its own section after the tracked diff", async () => {
    await writeFiles(dir, { "a.txt": "A\n", 'q"uote.txt': "q\n", "0first.txt": "first\n" });
    const paths = ["a.txt", 'q"uote.txt', "0first.txt"];
    const expected = await createGit(exec, bot).diffText(dir, paths);
    expect((await createGit(exec, bot).prepareCommit(dir, paths)).diff).toBe(expected);
  });
});

describe("composeDiffText", () => {
  it("puts the new files' sections after the tracked ones, even when they sort first", () => {
    const diff = [
      "diff --git a/0new.txt b/0new.txt\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/0new.txt\n@@ -0,0 +1 @@\n+diff --git a/x b/x\n",
      "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
    ].join("");
    const out = composeDiffText(diff, ["0new.txt"]);
    expect(out.startsWith("Added 0new.txt\ndiff --git a/a.txt b/a.txt\n")).toBe(true);
    expect(out.endsWith("+diff --git a/x b/x\n")).toBe(true);
  });
});

describe("push after a commit this object made", () => {
  it("pushes the commit it made without asking git for HEAD, and without `git init` for the clean git dir", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "ws-push-"));
    try {
      const bare = await seedBareRepo(root, "origin.git", { "a.txt": "a\n" });
      const counted = countingExec();
      const git = createGit(counted.exec, bot);
      const dir = path.join(root, "clone");
      await git.clone({ url: bare, branch: "main", dir, depth: 1 });
      await writeFiles(dir, { "a.txt": "A\n" });
      const result = await (await git.prepareCommit(dir, ["a.txt"])).commit({ subject: "fix: a" });
      counted.calls.length = 0;
      await git.push({ dir, branch: "main", token: "t0ken" });
      expect(counted.calls).toEqual(["push"]);
      expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(result.sha);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
