import type { PushEvent } from "@octokit/webhooks-types";
import {
  exampleInstallation,
  examplePayload,
  exampleUser,
  startE2E,
  UNSANDBOXED,
  type E2E,
} from "../helpers/e2e-harness.js";

const bot = "aider-bot[bot]";

describe("e2e: a push to the default branch is seen by triage at once", () => {
  let e2e: E2E;
  afterAll(async () => {
    await e2e?.close();
  });

  it("drops the repository's cached config when its default branch is pushed", async () => {
    e2e = await startE2E({
      files: { "README.md": "# w\n", ".github/aider.yml": 'test: "echo first-config"\n' },
      permissions: { ann: "write" },
      // Triage shares a repository's config for an hour here: only the push can make it read the file again.
      env: { ...UNSANDBOXED, AIDER_BOT_TRIAGE_CACHE_MS: "3600000" },
    });
    const issue = e2e.issue({ title: "t", body: "b", user: "ann" });
    const lastReply = () => e2e.repo.comments.filter((c) => c.user === bot).at(-1)?.body ?? "";
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider checks", "ann"));
    await e2e.idle();
    expect(lastReply()).toContain("echo first-config");

    await e2e.pushAs("main", { ".github/aider.yml": 'test: "echo second-config"\n' });
    const example = examplePayload("push");
    const commit = example.head_commit;
    if (!commit) throw new Error("GitHub's first push example has no head commit");
    const push: PushEvent = {
      ...example,
      ref: "refs/heads/main",
      before: "0".repeat(40),
      after: "1".repeat(40),
      repository: e2e.repository(),
      installation: exampleInstallation(1),
      sender: exampleUser("ann", { id: 1 }),
      commits: [{ ...commit, id: "1".repeat(40), added: [], removed: [], modified: [".github/aider.yml"] }],
    };
    expect((await e2e.send("push", push)).status).toBe(200);
    await e2e.send("issue_comment", e2e.commentPayload(issue, "/aider checks", "ann"));
    await e2e.idle();
    expect(lastReply()).toContain("echo second-config");
  }, 90_000);
});
