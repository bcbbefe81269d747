import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { createGit } from "../../src/workspace/create-git.js";
import { HookRejectedError, NothingToCommitError } from "../../src/workspace/git-errors.js";
import { composeDiffText, parseCommitSummary } from "../../src/workspace/git-prepared-commit.js";
import { numstatOfDiff, parseNumstat } from "../../src/workspace/parse-numstat.js";
import { contentDiff } from "../../src/coder/early-subject.js";
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
    const news = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`new/f${String(i).padStart(2, "0")}.txt`, `line ${i}\nsecond\n`]),
    );
    await writeFiles(dir, { "a.txt": "A\n", ...news, "skip.log": "ignored\n", "zz-last.txt": "no newline" });
    await rm(path.join(dir, "gone.txt"));
    const paths = ["a.txt", "gone.txt", "skip.log", "never-existed.txt", "zz-last.txt", ...Object.keys(news)];
    const expected = await createGit(exec, bot).diffText(dir, paths);

    const counted = countingExec();
    const git = createGit(counted.exec, bot);
    const prepared = await git.prepareCommit(dir, paths);
    expect(prepared.diff).toBe(expected);
    const result = await prepared.commit({ subject: "feat: many files" });

    // ls-files, add (the new files only), diff, commit: not one process per new file; the commit's summary names it.
    expect(counted.calls).toEqual(["ls-files", "add", "diff", "commit"]);
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
    expect(result.stats).toEqual(
      parseNumstat(await sh(dir, ["show", "--numstat", "-z", "--no-renames", "--format=", "HEAD"])),
    );
  });

  it("costs two processes when every path is a file known to be tracked, three when it must ask git", async () => {
    await writeFiles(dir, { "a.txt": "A\n", "b.txt": "B\n" });
    const counted = countingExec();
    const git = createGit(counted.exec, bot);
    const tracked = new Set(["a.txt", "b.txt", "gone.txt", ".gitignore"]);
    const known = await (await git.prepareCommit(dir, ["b.txt", "a.txt"], tracked)).commit({ subject: "fix: a and b" });
    expect(counted.calls).toEqual(["diff", "commit"]);
    expect(known.stats).toEqual([
      { path: "a.txt", added: 1, removed: 1 },
      { path: "b.txt", added: 1, removed: 1 },
    ]);
    expect(known.sha).toBe((await sh(dir, ["rev-parse", "HEAD"])).trim());

    counted.calls.length = 0;
    await writeFiles(dir, { "a.txt": "AA\n", "c.txt": "new\n" });
    await (await git.prepareCommit(dir, ["a.txt", "c.txt"], tracked)).commit({ subject: "feat: c" });
    expect(counted.calls).toEqual(["ls-files", "add", "diff", "commit"]);
    expect((await sh(dir, ["show", "--name-only", "--format=", "HEAD"])).trim().split("\n")).toEqual([
      "a.txt",
      "c.txt",
    ]);
  });

  it("takes an offered diff instead of its own when each path's starting content is the index's blob: one process", async () => {
    await writeFiles(dir, { "a.txt": "A\nmore\n" });
    await rm(path.join(dir, "gone.txt"));
    const indexIds = new Map(
      (await sh(dir, ["ls-files", "-s"]))
        .trim()
        .split("\n")
        .map((line) => [line.split("\t")[1]!, line.split(" ")[1]!] as [string, string]),
    );
    const from = new Map<string, string | null>([
      ["a.txt", "a\n"],
      ["gone.txt", "bye\n"],
    ]);
    const offered = {
      diff: contentDiff(
        from,
        new Map([
          ["a.txt", "A\nmore\n"],
          ["gone.txt", null],
        ]),
      )!,
      from,
      indexIds,
    };
    const tracked = new Set(["a.txt", "b.txt", "gone.txt", ".gitignore"]);
    const counted = countingExec();
    const git = createGit(counted.exec, bot);
    const prepared = await git.prepareCommit(dir, ["a.txt", "gone.txt"], tracked, offered);
    expect(prepared.diff).toBe(offered.diff);
    const result = await prepared.commit({ subject: "fix: a" });
    expect(counted.calls).toEqual(["commit"]);
    expect(result.stats).toEqual([
      { path: "a.txt", added: 2, removed: 1 },
      { path: "gone.txt", added: 0, removed: 1 },
    ]);
    expect(result.sha).toBe((await sh(dir, ["rev-parse", "HEAD"])).trim());
    expect((await sh(dir, ["show", "--name-only", "--format=", "HEAD"])).trim().split("\n")).toEqual([
      "a.txt",
      "gone.txt",
    ]);
  });

  it("diffs itself when an offered diff starts from other content than the index's, or names a file git does not track", async () => {
    const indexIds = new Map([["a.txt", (await sh(dir, ["rev-parse", "HEAD:a.txt"])).trim()]]);
    await writeFiles(dir, { "a.txt": "A\n", "c.txt": "new\n" });
    const counted = countingExec();
    const git = createGit(counted.exec, bot);
    const tracked = new Set(["a.txt", "b.txt", "gone.txt", ".gitignore"]);
    // The run first read a.txt after something had already changed it: its diff would leave that change out.
    const stale = {
      diff: "diff --git a/a.txt b/a.txt\n",
      from: new Map([["a.txt", "changed before the run read it\n"]]),
      indexIds,
    };
    const own = await git.prepareCommit(dir, ["a.txt"], tracked, stale);
    expect(own.diff).toContain("-a\n+A\n");
    expect(counted.calls).toEqual(["diff"]);
    counted.calls.length = 0;
    const fresh = { diff: "Added c.txt\n", from: new Map([["c.txt", null]]), indexIds };
    await git.prepareCommit(dir, ["c.txt"], tracked, fresh);
    expect(counted.calls).toEqual(["ls-files", "add", "diff"]);
  });

  it("asks git for the stats when an offered diff's counts disagree with the commit's", async () => {
    await writeFiles(dir, { "a.txt": "A\n" });
    const indexIds = new Map([["a.txt", (await sh(dir, ["rev-parse", "HEAD:a.txt"])).trim()]]);
    // Starts from the index's content, but counts more lines than the commit changes (a wrong diff cannot lie to the stats).
    const offered = {
      diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n-a\n+A\n+B\n",
      from: new Map([["a.txt", "a\n"]]),
      indexIds,
    };
    const counted = countingExec();
    const result = await (
      await createGit(counted.exec, bot).prepareCommit(dir, ["a.txt"], new Set(["a.txt"]), offered)
    ).commit({ subject: "fix: a" });
    expect(counted.calls).toEqual(["commit", "diff-tree"]);
    expect(result.stats).toEqual([{ path: "a.txt", added: 1, removed: 1 }]);
  });

  it("asks git for the stats when a hook changed what was committed", async () => {
    await writeFiles(dir, { "a.txt": "A\n" });
    const hook = path.join(dir, ".git/hooks/pre-commit");
    await writeFile(hook, "#!/bin/sh\nprintf 'A\\nfrom the hook\\n' > a.txt\ngit add a.txt\n");
    await chmod(hook, 0o755);
    const counted = countingExec();
    const result = await (
      await createGit(counted.exec, bot).prepareCommit(dir, ["a.txt"], new Set(["a.txt"]))
    ).commit({ subject: "fix: a" });
    expect(counted.calls).toEqual(["diff", "commit", "diff-tree"]);
    expect(result.stats).toEqual([{ path: "a.txt", added: 2, removed: 1 }]);
    expect(result.sha).toBe((await sh(dir, ["rev-parse", "HEAD"])).trim());
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

describe("numstatOfDiff", () => {
  it("counts what git's --numstat counts, for every kind of change", async () => {
    const dir = await makeRepo({
      "a.txt": "a\nb\nc\n",
      "bin.dat": "x\u0000y",
      "mode.sh": "echo\n",
      "gone.txt": "1\n2\n",
      "d/e f.txt": "-- dash\n++ plus\n",
    });
    try {
      await writeFiles(dir, {
        "a.txt": "a\n+b\nc\n--\n",
        "bin.dat": "x\u0000z",
        "d/e f.txt": "--- dash\n+++ plus\n",
        "new/empty.txt": "",
        "new/no-eol.txt": "last",
        "d.txt": "sorts between d/ and e\n",
      });
      await chmod(path.join(dir, "mode.sh"), 0o755);
      await rm(path.join(dir, "gone.txt"));
      await sh(dir, ["add", "-A"]);
      const diff = await sh(dir, ["diff", "--no-renames", "--cached", "HEAD"]);
      const numstat = parseNumstat(await sh(dir, ["diff", "--no-renames", "--cached", "--numstat", "-z", "HEAD"]));
      expect(numstat.length).toBe(8);
      expect(numstatOfDiff(`Added new/empty.txt\n${diff}`)).toEqual(numstat);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives up on a header that quotes its path", () => {
    expect(numstatOfDiff('diff --git "a/q\\"x" "b/q\\"x"\nnew file mode 100644\n@@ -0,0 +1 @@\n+q\n')).toBeNull();
    expect(numstatOfDiff("")).toEqual([]);
  });
});

describe("parseCommitSummary", () => {
  const sha = "4bb9a348253e2f27b13d70cb6a307e4f4599aff5";
  it.each([
    [`[main ${sha}] fix: a\n 1 file changed, 2 insertions(+)\n`, { sha, files: 1, added: 2, removed: 0 }],
    [
      `[main (root-commit) ${sha}] first\n 3 files changed, 0 insertions(+), 0 deletions(-)\n create mode 100644 x\n`,
      { sha, files: 3, added: 0, removed: 0 },
    ],
    [
      `[detached HEAD ${sha}] x ${"0".repeat(40)}] y\n Author: A <a@b> 9 files changed, 9 insertions(+)\n 2 files changed, 1 deletion(-)\n`,
      { sha, files: 2, added: 0, removed: 1 },
    ],
    [
      `[feature/x ${"ab".repeat(32)}] sha-256\n 1 file changed, 1 insertion(+), 1 deletion(-)\n`,
      { sha: "ab".repeat(32), files: 1, added: 1, removed: 1 },
    ],
  ])("reads %j", (stdout, expected) => {
    expect(parseCommitSummary(stdout)).toEqual(expected);
  });

  it.each([[`[main 4bb9a34] short\n 1 file changed\n`], [`[main ${sha}] no totals\n`], [`Auf Branch main\n`], [""]])(
    "refuses %j",
    (stdout) => {
      expect(parseCommitSummary(stdout)).toBeNull();
    },
  );
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
