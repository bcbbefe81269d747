import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { createInPlaceGit, sameRepoUrl, workspaceMismatch } from "../../src/action/in-place-git.js";
import { testExec } from "../helpers/test-exec.js";
import { createGit } from "../../src/workspace/create-git.js";

const exec = testExec({ sourceEnv: process.env });
const git = createGit(exec, { name: "bot", email: "bot@example.com" });
const logger = pino({ level: "silent" });

async function sh(cwd: string, ...args: string[]): Promise<string> {
  const r = await exec.run({
    command: "git",
    args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
    cwd,
  });
  if (r.exitCode !== 0) throw new Error(r.output);
  return r.stdout.trim();
}

describe("the workflow's checkout, used in place", () => {
  let dir: string;
  let bare: string;
  let ws: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "in-place-"));
    bare = path.join(dir, "remote.git");
    ws = path.join(dir, "ws");
    await sh(dir, "init", "-q", "--bare", "-b", "main", bare);
    const seed = path.join(dir, "seed");
    await sh(dir, "init", "-q", "-b", "main", seed);
    await writeFile(path.join(seed, "a.txt"), "a\n");
    await sh(seed, "add", "-A");
    await sh(seed, "commit", "-q", "-m", "one");
    await sh(seed, "push", "-q", bare, "HEAD:refs/heads/main");
    await sh(seed, "push", "-q", bare, "HEAD:refs/heads/feature");
    await sh(dir, "clone", "-q", "-b", "main", bare, ws);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("fits when it is the run's branch of the same repository, clean, without extra credentials", async () => {
    expect(await workspaceMismatch(git, ws, { url: `${bare}/`, branch: "main" })).toBeNull();
    expect(await workspaceMismatch(git, ws, { url: bare, branch: "main" })).toBeNull();
  });

  it.each([
    ["another branch", async () => undefined, { branch: "feature" }, /on `main`, the run needs `feature`/],
    [
      "another repository",
      async () => undefined,
      { url: "https://github.com/evil/fork.git" },
      /origin is not this repository/,
    ],
    [
      "changed tracked files",
      async (w: string) => writeFile(path.join(w, "a.txt"), "changed\n"),
      {},
      /uncommitted changes/,
    ],
    ["a detached HEAD", async (w: string) => void (await sh(w, "checkout", "-q", "--detach")), {}, /detached HEAD/],
    [
      "persisted credentials",
      async (w: string) =>
        void (await sh(w, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic xyz")),
      {},
      /persist-credentials: false/,
    ],
  ])("does not fit with %s", async (_name, change, want, reason) => {
    await change(ws);
    expect(await workspaceMismatch(git, ws, { url: bare, branch: "main", ...want })).toMatch(reason);
  });

  it("adopts a fitting checkout instead of cloning, and every later step works there", async () => {
    const { runGit, resolve } = createInPlaceGit(git, { workspace: ws, logger });
    const runDir = path.join(dir, "job", "checkout");
    await runGit.clone({ url: bare, branch: "main", dir: runDir, token: "" });
    expect(resolve(runDir)).toBe(ws);
    await expect(stat(runDir)).rejects.toThrow();
    await runGit.createBranch(runDir, "aider/x");
    expect(await sh(ws, "rev-parse", "--abbrev-ref", "HEAD")).toBe("aider/x");
    expect(await runGit.headSha(runDir)).toBe(await sh(ws, "rev-parse", "HEAD"));
  });

  it("clones the branch into the run's folder when the checkout does not fit", async () => {
    const { runGit, resolve } = createInPlaceGit(git, { workspace: ws, logger });
    const runDir = path.join(dir, "job", "checkout");
    await runGit.clone({ url: bare, branch: "feature", dir: runDir, token: "" });
    expect(resolve(runDir)).toBe(runDir);
    expect(await sh(runDir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("feature");
    expect(await sh(ws, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
  });

  it("compares repository URLs whatever the spelling", () => {
    expect(sameRepoUrl("https://github.com/Acme/Widgets", "https://github.com/acme/widgets.git")).toBe(true);
    expect(sameRepoUrl("https://github.com/acme/widgets/", "https://github.com/acme/widgets")).toBe(true);
    expect(sameRepoUrl("https://github.com/acme/widgets-fork", "https://github.com/acme/widgets")).toBe(false);
  });
});
