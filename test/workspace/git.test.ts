import { mkdtemp, readFile, rm, writeFile, mkdir, chmod } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { createGit } from "../../src/workspace/create-git.js";
import { HookRejectedError, PushRejectedError } from "../../src/workspace/git-errors.js";
import { startFakeGitHub, type FakeGitHub } from "../../src/demo/start-fake-github.js";
import { branchLog, fileOnBranch, seedRepo } from "../../src/demo/seed-repo.js";

const env = process.env;
const exec = createExec({ sourceEnv: env });
const git = createGit(exec, { name: "aider-bot[bot]", email: "bot@example.com" });

async function token(fake: FakeGitHub): Promise<string> {
  const res = await fetch(`${fake.apiUrl}/app/installations/1/access_tokens`, { method: "POST" });
  return ((await res.json()) as { token: string }).token;
}

describe("git over HTTP with a token header", () => {
  let fake: FakeGitHub;
  let tmp: string;
  beforeEach(async () => {
    fake = await startFakeGitHub({ sourceEnv: env });
    tmp = await mkdtemp(path.join(os.tmpdir(), "git-test-"));
  });
  afterEach(async () => {
    await fake.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it("clones, commits only the given paths with trailers and author, and pushes; the token is never in a URL or on disk", async () => {
    const repo = await seedRepo(fake, env, { owner: "acme", name: "app", files: { "a.txt": "a\n", "b.txt": "b\n" }, permissions: {} });
    const tok = await token(fake);
    const dir = path.join(tmp, "c");
    await git.clone({ url: `${fake.webUrl}/acme/app.git`, branch: "main", dir, token: tok });
    await writeFile(path.join(dir, "a.txt"), "A\n");
    await writeFile(path.join(dir, "b.txt"), "user's own dirty change\n");
    await mkdir(path.join(dir, "new"));
    await writeFile(path.join(dir, "new", "c.txt"), "c\n");
    const result = await git.commit(dir, {
      paths: ["a.txt", "new/c.txt"],
      subject: "feat: change a",
      body: "Requested: change a",
      trailers: ["Co-authored-by: ann <1+ann@users.noreply.github.com>", "Aider-Bot-Run: r1"],
    });
    expect(result.stats).toEqual(expect.arrayContaining([{ path: "a.txt", added: 1, removed: 1 }, { path: "new/c.txt", added: 1, removed: 0 }]));
    const status = await git.run(dir, ["status", "--porcelain"]);
    expect(status.stdout).toContain(" M b.txt");
    await git.push({ dir, branch: "main", token: tok });
    const [head] = await branchLog(fake, env, repo, "main", 1);
    expect(head!.subject).toBe("feat: change a");
    expect(head!.body).toContain("Co-authored-by: ann <1+ann@users.noreply.github.com>");
    expect(head!.body).toContain("Aider-Bot-Run: r1");
    expect(head!.author).toBe("aider-bot[bot] <bot@example.com>");
    expect(await fileOnBranch(fake, env, repo, "main", "b.txt")).toBe("b\n");
    const config = await readFile(path.join(dir, ".git", "config"), "utf8");
    expect(config).not.toContain(tok);
    expect(config).toContain(`url = ${fake.webUrl}/acme/app.git`);
    expect(fake.gitRequests.every((r) => !r.url.includes(tok))).toBe(true);
    expect(fake.gitRequests.some((r) => r.authorization?.startsWith("Basic "))).toBe(true);
  });

  it("rebases once when the branch moved, and reports a conflicting move", async () => {
    await seedRepo(fake, env, { owner: "acme", name: "app", files: { "a.txt": "a\n", "b.txt": "b\n" }, permissions: {} });
    const tok = await token(fake);
    const mine = path.join(tmp, "mine");
    const theirs = path.join(tmp, "theirs");
    await git.clone({ url: `${fake.webUrl}/acme/app.git`, branch: "main", dir: mine, token: tok });
    await git.clone({ url: `${fake.webUrl}/acme/app.git`, branch: "main", dir: theirs, token: tok });
    await writeFile(path.join(theirs, "b.txt"), "theirs\n");
    await git.commit(theirs, { paths: ["b.txt"], subject: "chore: theirs" });
    await git.push({ dir: theirs, branch: "main", token: tok });
    await writeFile(path.join(mine, "a.txt"), "mine\n");
    await git.commit(mine, { paths: ["a.txt"], subject: "feat: mine" });
    await git.push({ dir: mine, branch: "main", token: tok });
    const log = await git.recentCommits(mine, 3);
    expect(log.map((c) => c.message.split("\n")[0])).toEqual(["feat: mine", "chore: theirs", "Initial commit"]);
    // Now a conflicting change on the same line.
    await git.run(theirs, ["pull", "--quiet", "--rebase", "origin", "main"], { token: tok });
    await writeFile(path.join(theirs, "b.txt"), "theirs 2\n");
    await git.commit(theirs, { paths: ["b.txt"], subject: "chore: theirs 2" });
    await git.push({ dir: theirs, branch: "main", token: tok });
    await writeFile(path.join(mine, "b.txt"), "mine 2\n");
    await git.commit(mine, { paths: ["b.txt"], subject: "feat: mine 2" });
    await expect(git.push({ dir: mine, branch: "main", token: tok })).rejects.toBeInstanceOf(PushRejectedError);
  });

  it("is refused without a token", async () => {
    await seedRepo(fake, env, { owner: "acme", name: "app", files: { "a.txt": "a\n" }, permissions: {} });
    await expect(git.clone({ url: `${fake.webUrl}/acme/app.git`, branch: "main", dir: path.join(tmp, "x") })).rejects.toThrow(/git clone failed/);
  });
});

describe("local git", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "git-local-"));
    await git.run(dir, ["init", "-q", "-b", "main"]);
    await writeFile(path.join(dir, "a.txt"), "a\n");
    await git.run(dir, ["add", "a.txt"]);
    await git.run(dir, ["commit", "-q", "-m", "init"]);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("honours a failing pre-commit hook and surfaces its output", async () => {
    await writeFile(path.join(dir, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho 'lint says no'\nexit 1\n");
    await chmod(path.join(dir, ".git", "hooks", "pre-commit"), 0o755);
    await writeFile(path.join(dir, "a.txt"), "b\n");
    const err = await git.commit(dir, { paths: ["a.txt"], subject: "fix: x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookRejectedError);
    expect((err as Error).message).toContain("lint says no");
  });

  it("reverts a commit as a new commit, deletions are committed, diff text includes new files", async () => {
    await writeFile(path.join(dir, "a.txt"), "changed\n");
    const c = await git.commit(dir, { paths: ["a.txt"], subject: "feat: change" });
    const sha = await git.revert(dir, c.sha, ["Aider-Bot-Run: undo-1"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
    const [top] = await git.recentCommits(dir, 1);
    expect(top!.sha).toBe(sha);
    expect(top!.message).toMatch(/^Revert "feat: change"/);
    expect(top!.message).toContain("Aider-Bot-Run: undo-1");
    await writeFile(path.join(dir, "n.txt"), "new\n");
    expect(await git.diffText(dir, ["n.txt"])).toContain("+new");
    await rm(path.join(dir, "a.txt"));
    const del = await git.commit(dir, { paths: ["a.txt"], subject: "chore: delete" });
    expect(del.stats).toEqual([{ path: "a.txt", added: 0, removed: 1 }]);
  });
});
