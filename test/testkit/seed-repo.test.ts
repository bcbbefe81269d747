import { testExec } from "../helpers/test-exec.js";
import { branchLog, fileOnBranch, pushCommit, seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";

describe("seeding the fake GitHub's repositories (git fast-import, no work tree)", () => {
  let fake: FakeGitHub;
  beforeAll(async () => {
    fake = await startFakeGitHub({ sourceEnv: process.env, exec: testExec({ sourceEnv: process.env }) });
  });
  afterAll(async () => {
    await fake?.close();
  });
  const git = async (cwd: string, ...args: string[]) =>
    (await testExec({ sourceEnv: process.env }).run({ command: "git", args, cwd })).stdout;

  it("a repo, a pull request on top of its default branch, then a human's push on that branch: each one commit, files exact", async () => {
    const odd = 'docs/a "quoted" name\\with\nnewline.md';
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "seeded",
      defaultBranch: "trunk",
      files: { "src/a.ts": "export const a = 1;\n", [odd]: "odd\n", "ünï.txt": "ü — ✓\n", "no-newline": "x" },
      permissions: {},
    });
    const pr = await seedPullRequest(fake, repo, {
      title: "Change a",
      head: "feature",
      user: "ann",
      files: { "src/a.ts": "export const a = 2;\n", "src/b.ts": "b\n" },
    });
    await pushCommit(fake, repo, "feature", { "src/b.ts": "b2\n" }, "human on top");

    const trunk = await branchLog(fake, repo, "trunk");
    expect(trunk.map((c) => [c.subject, c.author])).toEqual([
      ["Initial commit", "Demo Maintainer <maintainer@example.com>"],
    ]);
    const feature = await branchLog(fake, repo, "feature");
    expect(feature.map((c) => c.subject)).toEqual(["human on top", "Change a", "Initial commit"]);
    expect(pr.pull).toMatchObject({ head: "feature", base: "trunk" });

    const bare = fake.bareDir(repo);
    expect((await git(bare, "ls-tree", "-r", "-z", "--name-only", "trunk")).split("\0").filter(Boolean).sort()).toEqual(
      ["no-newline", "src/a.ts", "ünï.txt", odd].sort(),
    );
    expect(await fileOnBranch(fake, repo, "trunk", "ünï.txt")).toBe("ü — ✓\n");
    expect(await fileOnBranch(fake, repo, "trunk", "no-newline")).toBe("x");
    expect(await fileOnBranch(fake, repo, "feature", "src/a.ts")).toBe("export const a = 2;\n");
    expect(await fileOnBranch(fake, repo, "feature", "src/b.ts")).toBe("b2\n");
    expect(await fileOnBranch(fake, repo, "feature", "no-newline")).toBe("x");
    // Pushes over HTTP are allowed, as GitHub allows them to a writer.
    expect(await git(bare, "config", "http.receivepack")).toBe("true\n");
  });

  it("a push on a branch that does not exist fails with git's own words", async () => {
    const repo = await seedRepo(fake, { owner: "acme", name: "nobranch", files: { a: "a\n" }, permissions: {} });
    await expect(pushCommit(fake, repo, "missing", { a: "b\n" })).rejects.toThrow(/fast-import.*failed/s);
  });
});
