import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { requireSignedCommits } from "../../testkit/fake-commit-on-branch.js";
import { branchLog, fileOnBranch, seedRepo } from "../../testkit/seed-repo.js";
import { createExec } from "../../src/exec/create-exec.js";
import { startE2EApp, UNSANDBOXED, type E2E, type E2EApp } from "../helpers/e2e-harness.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

describe("e2e: verified commits through GitHub's API, fork branches", () => {
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    app = await startE2EApp({ env: UNSANDBOXED });
  });
  afterAll(async () => {
    await app?.close();
  });

  const receivePacks = (owner: string, name: string) =>
    e2e.fake.gitRequests.filter((r) => r.url.includes(`/${owner}/${name}.git/git-receive-pack`)).length;
  const status = () => e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
  const full = () => `${e2e.repo.owner}/${e2e.repo.name}`;

  /** GitHub's answer for a commit, as any API client reads it. */
  async function commitAnswer(owner: string, name: string, sha: string) {
    const token = `test-reader-${sha.slice(0, 7)}`;
    e2e.fake.state.issuedTokens.push(token);
    const res = await fetch(`${e2e.fake.apiUrl}/repos/${owner}/${name}/commits/${sha}`, {
      headers: { authorization: `token ${token}` },
    });
    return (await res.json()) as { sha: string; commit: { verification: { verified: boolean; reason: string } } };
  }

  /** A plain `git push` over HTTP of one more commit on `branch`, as a human with a valid token would; its output. */
  async function humanPush(branch: string): Promise<{ ok: boolean; output: string }> {
    const token = "test-human-token";
    e2e.fake.state.issuedTokens.push(token);
    const dir = await mkdtemp(path.join(os.tmpdir(), "human-push-"));
    const exec = createExec({ sourceEnv: e2e.sourceEnv });
    const auth = [
      "-c",
      `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
    ];
    const git = (args: string[]) =>
      exec.run({
        command: "git",
        args: [...auth, "-c", "user.name=Human", "-c", "user.email=h@example.com", ...args],
        cwd: dir,
      });
    try {
      await git(["clone", "--quiet", "--branch", branch, `${e2e.fake.webUrl}/${full()}.git`, "."]);
      await git(["commit", "--quiet", "--allow-empty", "-m", "unsigned human commit"]);
      const r = await git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
      return { ok: r.exitCode === 0, output: r.output };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("a run's commit is made by the API (no git push), GitHub reports it verified, and a branch that requires signatures takes it while a plain push is refused", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await requireSignedCommits(e2e.fake, e2e.repo, "feature");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("fix: add");
    expect(status()).toContain(`🚀 Pushed [\`${head!.sha.slice(0, 7)}\`]`);
    expect(status()).not.toContain("git push");
    // Made by createCommitOnBranch, with the message's trailers kept, and not one receive-pack for this repository.
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === full())).toEqual([
      { repo: full(), branch: "feature", oid: head!.sha },
    ]);
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBe(0);
    // Made with the job's contents token (the API token has no `contents` permission), never a broader one.
    const mutation = e2e.fake.state.calls
      .filter((c) => c.path === "/graphql" && String(c.body).includes("createCommitOnBranch"))
      .at(-1)!;
    const scope = e2e.fake.state.tokenScopes.find((t) => mutation.authorization?.endsWith(` ${t.token}`));
    expect(scope).toMatchObject({ repositories: [e2e.repo.name], permissions: { contents: "write" } });
    const message = (
      await e2e.fake.exec.run({
        command: "git",
        args: ["log", "-1", "--format=%B", head!.sha],
        cwd: e2e.fake.bareDir(e2e.repo),
      })
    ).stdout;
    expect(message).toMatch(/Aider-Bot-Run: /);
    expect(message).toContain("Co-authored-by: ann");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "src/calc.py")).toContain("a + b");
    const answer = await commitAnswer(e2e.repo.owner, e2e.repo.name, head!.sha);
    expect(answer.commit.verification).toMatchObject({ verified: true, reason: "valid" });
    // The protection refuses what is not signed by GitHub.
    const pushed = await humanPush("feature");
    expect(pushed.ok).toBe(false);
    expect(pushed.output).toContain("Commits must have verified signatures");
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.sha).toBe(head!.sha);
    // …and a human's commit that landed some other way is reported unsigned.
    const base = (await branchLog(e2e.fake, e2e.repo, "feature", 3))[1]!.sha;
    expect((await commitAnswer(e2e.repo.owner, e2e.repo.name, base)).commit.verification.verified).toBe(false);
  });

  it("undo is made by the API too", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await requireSignedCommits(e2e.fake, e2e.repo, "feature");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider undo", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe('Revert "fix: add"');
    expect(status()).toContain("↩️ Reverted");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "src/calc.py")).toContain("a - b");
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === full()).map((c) => c.oid)).toContain(head!.sha);
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBe(0);
    expect((await commitAnswer(e2e.repo.owner, e2e.repo.name, head!.sha)).commit.verification.verified).toBe(true);
  });

  it("an issue run creates its branch and commit through the API", async () => {
    e2e = await app.scenario({
      files,
      permissions: { ann: "admin" },
      replies: ["I need src/calc.py\n", fix, "fix: make add add"],
    });
    const issue = e2e.issue({
      title: "add() subtracts",
      body: "add(1, 2) gives -1",
      user: "reporter",
      labels: ["aider"],
    });
    const p = e2e.labelPayload(issue, "aider", "ann");
    await e2e.send("issues", p);
    await e2e.idle();
    const branch = `aider/issue-${issue.number}-add-subtracts`;
    expect(await fileOnBranch(e2e.fake, e2e.repo, branch, "src/calc.py")).toContain("a + b");
    expect([...e2e.repo.issues.values()].some((i) => i.pull?.head === branch)).toBe(true);
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === full()).map((c) => c.branch)).toEqual([branch]);
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBe(0);
  });

  it("commit.signing: git pushes with git", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": "commit:\n  signing: git\n" },
      permissions: { ann: "write" },
      replies: [fix, "fix: add"],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.subject).toBe("fix: add");
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === full())).toEqual([]);
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBeGreaterThan(0);
  });

  it("a change the API cannot express (an exec-bit change) falls back to git push, and the status says so", async () => {
    const script = { "run.sh": "echo one\n" };
    const edit = "run.sh\n```sh\n<<<<<<< SEARCH\necho one\n=======\necho two\n>>>>>>> REPLACE\n```\n";
    // The setup command makes the script executable in the checkout: the commit carries a mode change.
    e2e = await app.scenario({
      files: { ...script, ".github/aider.yml": 'setup: chmod +x run.sh\ntest: "true"\n' },
      permissions: { ann: "write" },
      replies: [edit, "chore: two"],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file run.sh say two", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("chore: two");
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === full())).toEqual([]);
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBeGreaterThan(0);
    expect(status()).toContain(
      "Pushed with `git push` instead of GitHub's API because the mode of `run.sh` changes (100644 → 100755)",
    );
    expect(status()).toContain("not Verified");
  });

  it("when GitHub's commit API fails, the change is still pushed with git (its files written again), and the status says why", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    e2e.repo.commitApiDown = true;
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("fix: add");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "src/calc.py")).toContain("return a + b");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "x.md")).toBe("x\n");
    expect(receivePacks(e2e.repo.owner, e2e.repo.name)).toBeGreaterThan(0);
    expect(status()).toContain("🚀");
    expect(status()).toContain(
      "Pushed with `git push` instead of GitHub's API because GitHub's API could not make the commit",
    );
  });

  /** A fork of the scenario's repository holding the PR's branch, and the PR pointing at it. */
  async function forkPr(maintainerCanModify: boolean) {
    const pr = await e2e.pr({ title: "x", head: "feature", user: "outsider", files: { "x.md": "x\n" } });
    const fork = await seedRepo(e2e.fake, { owner: "outsider", name: `${e2e.repo.name}-fork`, files, permissions: {} });
    await e2e.fake.exec.run({
      command: "git",
      args: ["fetch", "--quiet", e2e.fake.bareDir(e2e.repo), "feature:feature"],
      cwd: e2e.fake.bareDir(fork),
    });
    pr.pull!.headRepoFullName = `outsider/${fork.name}`;
    pr.pull!.maintainerCanModify = maintainerCanModify;
    return { pr, fork };
  }

  it("a fork PR that allows maintainer edits gets the commit on the fork's branch", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const { pr, fork } = await forkPr(true);
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, fork, "feature", 1);
    expect(head!.subject).toBe("fix: add");
    expect(await fileOnBranch(e2e.fake, fork, "feature", "src/calc.py")).toContain("a + b");
    expect(status()).toContain(`🚀 Pushed [\`${head!.sha.slice(0, 7)}\`]`);
    expect(status()).toContain(`outsider/${e2e.repo.name}-fork:feature`);
    expect(
      e2e.fake.state.apiCommits.filter((c) => c.repo === `outsider/${e2e.repo.name}-fork`).map((c) => c.oid),
    ).toEqual([head!.sha]);
    // The base repository's branch of the same name is untouched, and nothing was pushed with git anywhere.
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.subject).toBe("x");
    expect(receivePacks("outsider", `${e2e.repo.name}-fork`) + receivePacks(e2e.repo.owner, e2e.repo.name)).toBe(0);
  });

  it("a fork PR without maintainer edits gets the patch, as before", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const { pr, fork } = await forkPr(false);
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    expect(status()).toContain("comes from a fork");
    expect(status()).toContain("+    return a + b");
    expect((await branchLog(e2e.fake, fork, "feature", 1))[0]!.subject).toBe("x");
    expect(e2e.fake.state.apiCommits.filter((c) => c.repo === `outsider/${e2e.repo.name}-fork`)).toEqual([]);
  });

  it("a fork that allows edits but whose branch GitHub refuses to the App gets the patch with GitHub's reason", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const { pr, fork } = await forkPr(true);
    fork.refuseAppPushes = true;
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    expect(status()).toContain("GitHub refused my commit");
    expect(status()).toContain("Resource not accessible by integration");
    expect(status()).toContain("Allow edits by maintainers");
    expect(status()).toContain("+    return a + b");
    expect((await branchLog(e2e.fake, fork, "feature", 1))[0]!.subject).toBe("x");
  });
});
