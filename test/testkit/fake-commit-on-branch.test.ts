import { ProbotOctokit } from "probot";
import { createBranchRef, createCommitOnBranch } from "../../src/github/commit-on-branch.js";
import { branchLog, fileOnBranch, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import type { ApiCommitRequest } from "../../src/github/commit-on-branch.js";

describe("the fake GitHub's createCommitOnBranch, through the gateway", () => {
  let fake: FakeGitHub;
  beforeAll(async () => {
    fake = await startFakeGitHub({ sourceEnv: { PATH: process.env.PATH } });
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
});
