import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GitError, PushRejectedError } from "../../src/workspace/git-errors.js";
import { pushBranch } from "../../src/workspace/git-push.js";
import { createGitRunner } from "../../src/workspace/git-runner.js";
import { exec, seedBareRepo, sh, writeFiles } from "./git-fixtures.js";

const run = createGitRunner(exec);
const committer = { name: "aider-bot", email: "bot@example.com" };

/** A bare "remote" with `main` (one commit), and a clone of it to push from. */
let root: string;
let bare: string;
let work: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "git-push-"));
  bare = await seedBareRepo(root, "origin.git", { "a.txt": "one\ntwo\nthree\n", "b.txt": "b\n" });
  work = path.join(root, "work");
  await sh(root, ["clone", "-q", bare, work]);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Commits `files` in `dir` with `message`; returns the new HEAD. */
async function commit(dir: string, files: Record<string, string>, message: string): Promise<string> {
  await writeFiles(dir, files);
  await sh(dir, ["add", "-A"]);
  await sh(dir, ["commit", "-q", "-m", message]);
  return (await sh(dir, ["rev-parse", "HEAD"])).trim();
}

/** Another clone's commit pushed to the remote's `main` (the branch moved while the bot worked). */
async function moveRemote(files: Record<string, string>, message: string): Promise<string> {
  const other = path.join(root, `other-${message.replace(/\W/g, "")}`);
  await sh(root, ["clone", "-q", bare, other]);
  const sha = await commit(other, files, message);
  await sh(other, ["push", "-q", "origin", "main"]);
  return sha;
}

const remoteLog = async (branch: string) => (await sh(bare, ["log", "--format=%s", branch])).trim().split("\n");

describe("pushBranch (real repositories, the checkout's own remote)", () => {
  it("pushes HEAD to a new branch and records it as the upstream of the current branch", async () => {
    await sh(work, ["checkout", "-q", "-b", "aider/fix"]);
    const head = await commit(work, { "c.txt": "c\n" }, "Add c");
    await pushBranch(run, { dir: work, branch: "aider/fix", setUpstream: true }, { committer });
    expect((await sh(bare, ["rev-parse", "refs/heads/aider/fix"])).trim()).toBe(head);
    expect((await sh(work, ["rev-parse", "--abbrev-ref", "@{upstream}"])).trim()).toBe("origin/aider/fix");
    expect((await sh(work, ["rev-parse", "origin/aider/fix"])).trim()).toBe(head);
  });

  it("when the branch moved without touching our lines: replays our commit on top of the new tip and pushes", async () => {
    await commit(work, { "b.txt": "b changed by the bot\n" }, "Bot change");
    await moveRemote({ "d.txt": "someone else\n" }, "Human change");
    await pushBranch(run, { dir: work, branch: "main" }, { committer });
    expect(await remoteLog("main")).toEqual(["Bot change", "Human change", "Initial commit"]);
    const show = await sh(bare, ["show", "main:b.txt"]);
    expect(show).toBe("b changed by the bot\n");
    // The replayed commit is committed by the bot's identity, not by whoever runs the process.
    expect((await sh(bare, ["log", "-1", "--format=%cn <%ce>", "main"])).trim()).toBe("aider-bot <bot@example.com>");
  });

  it("when the branch moved with a conflicting change: nothing is pushed, the checkout is left as it was", async () => {
    const ours = await commit(work, { "a.txt": "one\nTWO (bot)\nthree\n" }, "Bot change");
    const theirs = await moveRemote({ "a.txt": "one\nTWO (human)\nthree\n" }, "Human change");
    const error = await pushBranch(run, { dir: work, branch: "main" }, { committer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushRejectedError);
    expect((error as Error).message).toMatch(/moved while I was working and my commit conflicts/);
    expect((await sh(bare, ["rev-parse", "main"])).trim()).toBe(theirs);
    expect((await sh(work, ["rev-parse", "HEAD"])).trim()).toBe(ours);
    expect((await sh(work, ["status", "--porcelain"])).trim()).toBe("");
  });

  it("a push refused for another reason (a server hook) is a GitError with git's words, not a 'branch moved'", async () => {
    const hook = path.join(bare, "hooks", "pre-receive");
    await writeFile(hook, "#!/bin/sh\necho 'protected by policy' >&2\nexit 1\n");
    await chmod(hook, 0o755);
    await commit(work, { "c.txt": "c\n" }, "Add c");
    const error = await pushBranch(run, { dir: work, branch: "main" }, { committer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).not.toBeInstanceOf(PushRejectedError);
    expect((error as Error).message).toMatch(/git push to `main` failed: .*protected by policy/s);
    expect(await remoteLog("main")).toEqual(["Initial commit"]);
  });

  it("with a token but no known clone URL: refuses to send the credential anywhere, and pushes nothing", async () => {
    await commit(work, { "c.txt": "c\n" }, "Add c");
    const error = await pushBranch(run, { dir: work, branch: "main", token: "ghs_secret" }, { committer }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toMatch(/Refusing to send credentials/);
    expect(await remoteLog("main")).toEqual(["Initial commit"]);
  });
});
