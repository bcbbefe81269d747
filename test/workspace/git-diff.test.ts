import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { exec, makeRepo, writeFiles } from "./git-fixtures.js";

const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });

describe("diffStats of new files a repository's script may have replaced", () => {
  let dir: string;
  let outside: string;
  beforeEach(async () => {
    dir = await makeRepo({ "a.txt": "a\n" });
    outside = await mkdtemp(path.join(os.tmpdir(), "diff-outside-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("counts a new symbolic link as git commits it (one line, its target's path), never reading the file it names", async () => {
    await writeFile(
      path.join(outside, "app.pem"),
      "-----BEGIN PRIVATE KEY-----\nline\nline\nline\n-----END PRIVATE KEY-----\n",
    );
    await symlink(path.join(outside, "app.pem"), path.join(dir, "notes.py"));
    // (Old code read through this: /proc/self/environ counted as 0 lines; a link to /dev/zero grew until out of memory.)
    await symlink("/proc/self/environ", path.join(dir, "environ.py"));
    await writeFiles(dir, { "real.py": "x = 1\ny = 2\n" });
    expect(await git.diffStats(dir, "HEAD", undefined, ["notes.py", "environ.py", "real.py"])).toEqual([
      { path: "environ.py", added: 1, removed: 0 },
      { path: "notes.py", added: 1, removed: 0 },
      { path: "real.py", added: 2, removed: 0 },
    ]);
  });
});

describe("diffStats and diffText against HEAD", () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it("diff HEAD at once (no rev-parse first); on a branch without commits, against the empty tree", async () => {
    const dir = await makeRepo({ "a.txt": "a\n" });
    made.push(dir);
    await writeFiles(dir, { "a.txt": "a\nb\n" });
    const commands: string[] = [];
    const counting = createGit({
      ...exec,
      run: (req) => {
        const args = req.args ?? [];
        let i = 0;
        while (args[i] === "-c") i += 2;
        commands.push(args[i] ?? "");
        return exec.run(req);
      },
    });
    expect(await counting.diffStats(dir, "HEAD", undefined, ["a.txt"])).toEqual([
      { path: "a.txt", added: 1, removed: 0 },
    ]);
    expect(commands).toEqual(["diff", "ls-files"]);
    commands.length = 0;
    expect(await counting.diffText(dir, ["a.txt"])).toContain("+b\n");
    expect(commands).toEqual(["ls-files", "diff"]);

    const empty = await mkdtemp(path.join(os.tmpdir(), "diff-unborn-"));
    made.push(empty);
    await exec.run({ command: "git", args: ["init", "-q"], cwd: empty });
    await writeFile(path.join(empty, "n.txt"), "1\n2\n");
    await exec.run({ command: "git", args: ["add", "n.txt"], cwd: empty });
    expect(await counting.diffStats(empty, "HEAD", undefined, ["n.txt"])).toEqual([
      { path: "n.txt", added: 2, removed: 0 },
    ]);
    expect(await counting.diffText(empty, ["n.txt"])).toContain("+2\n");
  });
});
