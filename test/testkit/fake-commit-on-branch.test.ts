import { ProbotOctokit } from "probot";
import { createBranchRef, createCommitOnBranch } from "../../src/github/commit-on-branch.js";
import { branchLog, fileOnBranch, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import { localRunner, type ProcessRequest } from "../../testkit/run-process.js";
import type { ApiCommitRequest } from "../../src/github/commit-on-branch.js";

describe("the fake GitHub's createCommitOnBranch, through the gateway", () => {
  let fake: FakeGitHub;
  // The git commands the fake ran, in order (its seeding helpers' too).
  const ran: string[] = [];
  beforeAll(async () => {
    const local = localRunner({ PATH: process.env.PATH });
    const exec = {
      run: (req: ProcessRequest) => {
        const args = [...(req.args ?? [])];
        while (args[0] === "-c") args.splice(0, 2);
        ran.push(args[0] ?? "");
        return local.run(req);
      },
    };
    fake = await startFakeGitHub({ sourceEnv: { PATH: process.env.PATH }, exec });
  });
  afterAll(async () => {
    await fake.close();
  });

  const client = (token: string) => {
    const quiet = () => undefined;
    return new ProbotOctokit({
      auth: { token },
      baseUrl: fake.apiUrl,
      retry: { enabled: false },
      throttle: { enabled: false },
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    });
  };
  const request = (expectedHeadOid: string, branch = "main"): ApiCommitRequest => ({
    branch,
    expectedHeadOid,
    message: { headline: "fix: add", body: "Co-authored-by: ann <ann@example.com>" },
    fileChanges: {
      additions: [{ path: "src/calc.py", contents: Buffer.from("a + b\n").toString("base64") }],
      deletions: [{ path: "old.txt" }],
    },
  });

  it("makes a verified commit when the branch is where the caller expects it, and answers 'moved' when it is not", async () => {
    fake.state.issuedTokens.push("tok-1");
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "calc",
      files: { "src/calc.py": "a - b\n", "old.txt": "x\n" },
      permissions: {},
    });
    const api = client("tok-1");
    const [tip] = await branchLog(fake, repo, "main", 1);
    const made = await createCommitOnBranch(api, { owner: "acme", repo: "calc" }, request(tip!.sha));
    expect(made).toMatchObject({ kind: "made", verified: true });
    const [head] = await branchLog(fake, repo, "main", 1);
    expect(made.kind === "made" && made.oid).toBe(head!.sha);
    expect(head!.subject).toBe("fix: add");
    expect(await fileOnBranch(fake, repo, "main", "src/calc.py")).toBe("a + b\n");
    expect(await fileOnBranch(fake, repo, "main", "old.txt")).toBeNull();
    // The old head again: the compare-and-swap fails, and the branch stays.
    const stale = await createCommitOnBranch(api, { owner: "acme", repo: "calc" }, request(tip!.sha));
    expect(stale).toEqual({
      kind: "moved",
      reason: `Expected branch to point to "${tip!.sha}" but it did not. Pull and try again.`,
    });
    expect((await branchLog(fake, repo, "main", 1))[0]!.sha).toBe(head!.sha);
  });

  it("creates a branch ref, refuses an existing one, and refuses a token without contents: write", async () => {
    fake.state.issuedTokens.push("tok-2", "tok-read");
    fake.state.tokenScopes.push({ token: "tok-read", installationId: 1, permissions: { issues: "write" } });
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "refs",
      files: { "src/calc.py": "a - b\n", "old.txt": "x\n" },
      permissions: {},
    });
    const [tip] = await branchLog(fake, repo, "main", 1);
    await createBranchRef(client("tok-2"), { owner: "acme", repo: "refs" }, "aider/x", tip!.sha);
    expect((await branchLog(fake, repo, "aider/x", 1))[0]!.sha).toBe(tip!.sha);
    await expect(
      createBranchRef(client("tok-2"), { owner: "acme", repo: "refs" }, "aider/x", tip!.sha),
    ).rejects.toThrow(/Reference already exists/);
    const refused = await createCommitOnBranch(
      client("tok-read"),
      { owner: "acme", repo: "refs" },
      request(tip!.sha, "aider/x"),
    );
    expect(refused).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("Resource not accessible by integration"),
    });
    await expect(
      createCommitOnBranch(client("tok-2"), { owner: "acme", repo: "refs" }, { ...request(tip!.sha, "nope") }),
    ).rejects.toThrow(/does not exist/);
  });

  it("keeps an executable's mode, writes exact bytes and odd names, in three git processes, and leaves no scratch ref", async () => {
    fake.state.issuedTokens.push("tok-3");
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "modes",
      files: { "run.sh": "echo a\n", "keep.txt": "k\n" },
      permissions: {},
    });
    const bare = fake.bareDir(repo);
    const who = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" };
    const git = (...args: string[]) => fake.exec.run({ command: "git", args, cwd: bare, env: who });
    // Make run.sh executable on main, as a repository's script would be.
    const tree = (await git("ls-tree", "main")).stdout
      .split("\n")
      .map((line) => (line.endsWith("\trun.sh") ? line.replace("100644", "100755") : line))
      .join("\n");
    const made = (await fake.exec.run({ command: "git", args: ["mktree"], cwd: bare, input: tree })).stdout.trim();
    const [tip0] = await branchLog(fake, repo, "main", 1);
    const exe = (await git("commit-tree", made, "-p", tip0!.sha, "-m", "chmod")).stdout.trim();
    await git("update-ref", "refs/heads/main", exe);
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x0a]);
    ran.length = 0;
    const answer = await createCommitOnBranch(
      client("tok-3"),
      { owner: "acme", repo: "modes" },
      {
        branch: "main",
        expectedHeadOid: exe,
        message: { headline: "feat: more", body: "" },
        fileChanges: {
          additions: [
            { path: "run.sh", contents: Buffer.from("echo b\n").toString("base64") },
            { path: 'docs/a "quoted" name.md', contents: Buffer.from("ünïcode\r\n").toString("base64") },
          ],
          deletions: [{ path: "keep.txt" }],
        },
      },
    );
    expect(answer).toMatchObject({ kind: "made" });
    expect(ran).toEqual(["ls-tree", "fast-import", "update-ref"]);
    const listing = (await git("ls-tree", "-r", "main")).stdout;
    expect(listing).toMatch(/^100755 blob \S+\trun\.sh$/m);
    expect(listing).not.toContain("keep.txt");
    expect(await fileOnBranch(fake, repo, "main", 'docs/a "quoted" name.md')).toBe("ünïcode\r\n");
    // Bytes that are not UTF-8 go in as a blob of their own, exactly.
    const [tip] = await branchLog(fake, repo, "main", 1);
    const bin = await createCommitOnBranch(
      client("tok-3"),
      { owner: "acme", repo: "modes" },
      {
        branch: "main",
        expectedHeadOid: tip!.sha,
        message: { headline: "feat: bin", body: "" },
        fileChanges: { additions: [{ path: "data.bin", contents: binary.toString("base64") }], deletions: [] },
      },
    );
    expect(bin).toMatchObject({ kind: "made" });
    const blob = (await git("rev-parse", "main:data.bin")).stdout.trim();
    const size = (await git("cat-file", "-s", blob)).stdout.trim();
    expect(size).toBe("4");
    expect((await git("for-each-ref", "refs/fake-api-commits")).stdout).toBe("");
  });

  it("refuses a deletion of a missing file and a file in the way of a folder, as GitHub does, and moves nothing", async () => {
    fake.state.issuedTokens.push("tok-4");
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "refuse",
      files: { "a.txt": "a\n" },
      permissions: {},
    });
    const [tip] = await branchLog(fake, repo, "main", 1);
    const api = client("tok-4");
    type FileChanges = Parameters<typeof createCommitOnBranch>[2]["fileChanges"];
    const onMain = (fileChanges: FileChanges) =>
      createCommitOnBranch(
        api,
        { owner: "acme", repo: "refuse" },
        { branch: "main", expectedHeadOid: tip!.sha, message: { headline: "x", body: "" }, fileChanges },
      );
    await expect(onMain({ additions: [], deletions: [{ path: "gone.txt" }] })).rejects.toThrow(
      /'gone.txt' does not exist on 'main' and cannot be deleted/,
    );
    await expect(onMain({ additions: [{ path: "a.txt/b.txt", contents: "Yg==" }], deletions: [] })).rejects.toThrow(
      /Could not add 'a.txt\/b.txt'/,
    );
    expect((await branchLog(fake, repo, "main", 1))[0]!.sha).toBe(tip!.sha);
    const refs = await fake.exec.run({
      command: "git",
      args: ["for-each-ref", "refs/fake-api-commits"],
      cwd: fake.bareDir(repo),
    });
    expect(refs.stdout).toBe("");
  });
});
