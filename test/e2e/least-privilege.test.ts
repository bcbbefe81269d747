import { fileOnBranch } from "../../testkit/seed-repo.js";
import { GIT_TOKEN_PERMISSIONS, JOB_API_TOKEN_PERMISSIONS } from "../../src/app/mint-repo-token.js";
import { CHECK_RUN_SKIPPED } from "../../src/run/run-job.js";
import { startE2E, type E2E } from "../helpers/e2e-harness.js";
import { has } from "../helpers/needs.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n", "README.md": "# widgets\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

/** `/aider … fix add` on a new pull request, run to the end: the fix is on the branch; the last status comment. */
async function fixOnAPullRequest(e2e: E2E): Promise<string> {
  const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
  await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
  await e2e.idle().catch((e: unknown) => {
    throw new Error(`${String(e)}\n${e2e.logs().slice(-4000)}`);
  });
  expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "src/calc.py")).toContain("a + b");
  return e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
}

describe("e2e: a job holds only what it needs", () => {
  let e2e: E2E;
  afterEach(async () => {
    await e2e?.close();
  });

  it("clones and pushes with a token scoped to the one repository and its contents, and says where checks ran", async () => {
    e2e = await startE2E({
      files: { ...files, ".github/aider.yml": 'test: "true"\n' },
      permissions: { ann: "write" },
      replies: [fix, "fix: add"],
    });
    const status = await fixOnAPullRequest(e2e);
    const scoped = e2e.fake.state.tokenScopes.filter((s) => s.repositories !== undefined);
    // The job process got two tokens for this repository only: one for its GitHub writes, one (contents only) for git.
    expect(scoped).toHaveLength(2);
    expect(scoped).toEqual(
      expect.arrayContaining([
        {
          token: expect.any(String),
          installationId: 1,
          repositories: ["widgets"],
          permissions: { ...JOB_API_TOKEN_PERMISSIONS },
        },
        {
          token: expect.any(String),
          installationId: 1,
          repositories: ["widgets"],
          permissions: { ...GIT_TOKEN_PERMISSIONS },
        },
      ]),
    );
    const gitToken = scoped.find((t) => t.permissions?.contents === "write")!.token;
    // Every git request that carried credentials carried that scoped token, and nothing else.
    const gitTokens = new Set(
      e2e.fake.gitRequests
        .map((r) => r.authorization)
        .filter((a): a is string => !!a)
        .map(
          (a) =>
            Buffer.from(a.replace(/^Basic /, ""), "base64")
              .toString()
              .split(":")[1],
        ),
    );
    expect([...gitTokens]).toEqual([gitToken]);
    expect(status).toContain("🚀 Pushed");
    // The app's default (AIDER_BOT_SANDBOX=auto): in bubblewrap where it works, and nothing run (said so) where it does not.
    expect(status).toMatch(
      has("bubblewrap")
        ? /<summary>Sandbox<\/summary>\s+Repository commands ran in a bubblewrap sandbox/
        : "Repository commands were not run: the sandbox is unavailable",
    );
  }, 90_000);

  it("runs end to end on an installation that never granted checks, and says the Check Run was skipped", async () => {
    e2e = await startE2E({
      files: { ...files, ".github/aider.yml": 'test: "true"\n' },
      permissions: { ann: "write" },
      replies: [fix, "fix: add"],
    });
    // As GitHub does for such an installation: no token with `checks`, and no Check Run calls with its tokens.
    delete e2e.fake.state.installations.get(1)!.permissions.checks;
    const status = await fixOnAPullRequest(e2e);
    expect(status).toContain("🚀 Pushed");
    expect(status).toContain(CHECK_RUN_SKIPPED);
    expect(e2e.repo.checkRuns).toEqual([]);
    const { checks: _checks, ...withoutChecks } = JOB_API_TOKEN_PERMISSIONS;
    expect(e2e.fake.state.tokenScopes.filter((s) => s.repositories !== undefined)).toEqual(
      expect.arrayContaining([expect.objectContaining({ permissions: withoutChecks })]),
    );
  }, 90_000);

  it("reads a private repository's workflows and files with its own token: its checks are found and run", async () => {
    const workflow = [
      "name: CI",
      "on: [pull_request]",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - run: python3 -m unittest -v",
      "",
    ].join("\n");
    e2e = await startE2E({
      files: {
        ...files,
        ".github/workflows/ci.yml": workflow,
        "test_calc.py":
          "import unittest\nfrom src.calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
      },
      permissions: { ann: "write" },
      replies: [fix, "fix: add"],
    });
    // GitHub answers a token minted without `contents` "Resource not accessible by integration" on a private
    // repository's contents, trees and commits: the workflow is found only if the job's token may read them.
    e2e.repo.private = true;
    const status = await fixOnAPullRequest(e2e);
    expect(status).toContain("🚀 Pushed");
    expect(status).toContain(".github/workflows/ci.yml job test");
    expect(status).toContain("`python3 -m unittest -v`");
    // The job's API token reads contents and writes none.
    expect(JOB_API_TOKEN_PERMISSIONS).toMatchObject({ contents: "read" });
  }, 90_000);
});
