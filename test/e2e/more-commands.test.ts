import { branchLog, seedRepo } from "../../testkit/seed-repo.js";
import { stagesEntered, startE2EApp, UNSANDBOXED, type E2E, type E2EApp } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

describe("e2e: ask, retry, cancel, forks", () => {
  // One app for the whole file; each test is a scenario on its own repository.
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    app = await startE2EApp({ env: UNSANDBOXED });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("ask answers in the status comment without touching the branch (triage is enough)", async () => {
    e2e = await app.scenario({
      files,
      permissions: { tri: "triage" },
      replies: ["`add` subtracts because line 2 uses `-`."],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "tri", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider ask --file src/calc.py why is add wrong?", "tri"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(status).toContain("`add` subtracts because line 2 uses `-`.");
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("x");
    expect(e2e.llm.requests[0]!.body.messages[0]!.content).not.toContain("<<<<<<< SEARCH");
  });

  it("retry re-runs the last request with new options", async () => {
    e2e = await app.scenario({
      files,
      permissions: { ann: "write" },
      replies: ["I don't see the problem.", "Still nothing.", fix, "fix: add"],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py make add add", "ann"));
    await e2e.idle();
    expect(e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body).toContain("No changes were made");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider retry --edit-format diff-fenced", "ann"));
    await e2e.idle();
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("fix: add");
    const retried = e2e.llm.requests[2]!.body.messages;
    expect(retried.at(-1)!.content).toContain("make add add");
    // diff-fenced: the examples put the path on the first line inside the fence.
    const all = retried.map((m) => m.content).join("\n");
    expect(all).toMatch(/```\w*\n[\w/.-]+\.\w+\n<<<<<<< SEARCH/);
    expect(e2e.llm.requests[0]!.body.messages.map((m) => m.content).join("\n")).not.toMatch(
      /```\w*\n[\w/.-]+\.\w+\n<<<<<<< SEARCH/,
    );
  });

  it("cancel with nothing running says so", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" } });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider cancel", "ann"));
    // Triage runs after the webhook is answered: wait for it.
    await e2e.idle();
    expect(e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body).toMatch(
      /^<!-- aider-bot:reply:\S+ -->\nThere is nothing to cancel here\.$/,
    );
  });

  it("cancel stops a running job at once, even in the middle of its test command", async () => {
    // The test command outlasts every harness wait: if cancel did not stop it, idle() below times out.
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": "test: sleep 600\n" },
      permissions: { ann: "write" },
      replies: [fix],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = stagesEntered(e2e.logs(), "tests");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const status = () => e2e.repo.comments.find((c) => c.user === bot && c.body.includes("aider-bot:run:"))?.body ?? "";
    await waitUntil(
      () => stagesEntered(e2e.logs(), "tests") > before,
      () => `never reached the tests stage:\n${status()}`,
    );
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider cancel", "ann"));
    await e2e.idle();
    expect(status()).toContain("Cancelled on request");
    expect(e2e.repo.comments.some((c) => /^<!-- aider-bot:reply:\S+ -->\n🛑 Cancelled 1 request\.$/.test(c.body))).toBe(
      true,
    );
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("x");
  });

  it("never pushes to a fork: the change is posted as a patch", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const fork = await seedRepo(e2e.fake, { owner: "outsider", name: "widgets", files, permissions: {} });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "outsider", files: { "x.md": "x\n" } });
    pr.pull!.headRepoFullName = "outsider/widgets";
    // The fork holds the same branch.
    const { pushCommit } = await import("../../testkit/seed-repo.js");
    await pushCommit(e2e.fake, fork, "main", { "x.md": "x\n" }, "x");
    const { createExec } = await import("../../src/exec/create-exec.js");
    await createExec({ sourceEnv: e2e.sourceEnv }).run({
      command: "git",
      args: ["branch", "feature", "main"],
      cwd: e2e.fake.bareDir(fork),
    });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(status).toContain("comes from a fork");
    expect(status).toContain("+    return a + b");
    const [head] = await branchLog(e2e.fake, fork, "feature", 1);
    expect(head!.subject).toBe("x");
    expect(e2e.fake.gitRequests.some((r) => r.url.includes("git-receive-pack"))).toBe(false);
  });
});
