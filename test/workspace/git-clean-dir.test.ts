import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sourceEnv } from "../../src/config/env.js";
import { testExec } from "../helpers/test-exec.js";
import { openCleanGitDir } from "../../src/workspace/git-clean-dir.js";
import { createGitRunner } from "../../src/workspace/git-runner.js";

const run = createGitRunner(testExec({ sourceEnv: sourceEnv() }));

describe("openCleanGitDir: the checkout's .git/shallow", () => {
  let dir: string;
  let checkout: string;
  let secret: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "clean-dir-"));
    checkout = path.join(dir, "checkout");
    secret = path.join(dir, "secret.txt");
    await writeFile(secret, "TOP-SECRET-VALUE\n");
    execFileSync("git", ["init", "-q", checkout]);
    execFileSync("git", [
      "-C",
      checkout,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@e",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "one",
    ]);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const isShallow = async (clean: Awaited<ReturnType<typeof openCleanGitDir>>) =>
    (await clean.run(["rev-parse", "--is-shallow-repository"])).stdout.trim();

  it("copies a shallow boundary of commit ids in", async () => {
    const head = execFileSync("git", ["-C", checkout, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    await writeFile(path.join(checkout, ".git/shallow"), `${head}\n`);
    const clean = await openCleanGitDir(run, checkout);
    try {
      expect(await isShallow(clean)).toBe("true");
    } finally {
      await clean.close();
    }
  });

  it("never reads through, nor writes through, a shallow file a script replaced with a link", async () => {
    await symlink(secret, path.join(checkout, ".git/shallow"));
    const clean = await openCleanGitDir(run, checkout);
    try {
      expect(await isShallow(clean)).toBe("false");
      // Git writes a boundary into the clean dir; closing copies it back by replacing the link, not through it.
      const head = (await clean.run(["rev-parse", "HEAD"])).stdout.trim();
      await writeFile(
        path.join((await clean.run(["rev-parse", "--absolute-git-dir"])).stdout.trim(), "shallow"),
        `${head}\n`,
      );
    } finally {
      await clean.close();
    }
    expect(await readFile(secret, "utf8")).toBe("TOP-SECRET-VALUE\n");
    await unlink(path.join(checkout, ".git/shallow"));
  });

  it("ignores a shallow file that is not a list of commit ids", async () => {
    await writeFile(path.join(checkout, ".git/shallow"), "TOP-SECRET-VALUE\n");
    const clean = await openCleanGitDir(run, checkout);
    try {
      expect(await isShallow(clean)).toBe("false");
    } finally {
      await clean.close();
    }
  });
});
