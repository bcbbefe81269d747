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
