import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { branchLog } from "../../testkit/seed-repo.js";
import { commitReply, isCommitMessageRequest } from "../../testkit/scripted-llm-server.js";
import { CLI_MAIN } from "../helpers/cli-entry.js";
import { sandboxWherePresent, startE2EApp, type E2E, type E2EApp } from "../helpers/e2e-harness.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const bot = "aider-bot[bot]";
const plan =
  "Files: `src/calc.py`\n\n1. In `src/calc.py`, make `add` return `a + b` instead of `a - b`.\n2. Keep the function's signature as it is.\n";
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";

/** The bot's plan comments of the scenario's repository, oldest first. */
const plans = (e2e: E2E) => e2e.repo.comments.filter((c) => c.user === bot && c.body.includes("<!-- aider-bot:plan:"));
const coderRequests = (e2e: E2E) => e2e.llm.requests.filter((r) => !isCommitMessageRequest(r.body));
const tick = (body: string) =>
  body.replace("- [ ] **Approve and run this plan**", "- [x] **Approve and run this plan**");

describe("e2e: plan, then approve", () => {
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    app = await startE2EApp({ env: sandboxWherePresent() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("/aider plan posts a plan with an approve box and commits nothing; a read-only tick runs nothing; a maintainer's tick runs the plan through the editor", async () => {
    e2e = await app.scenario({
      files,
      permissions: { ann: "write", rob: "read" },
      replies: [plan, fix, commitReply("fix: make add add")],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider plan --file src/calc.py make add add", "ann"));
    await e2e.idle();
    const [made] = plans(e2e);
    expect(made).toBeDefined();
    expect(made!.body).toContain("- [ ] **Approve and run this plan**");
    expect(made!.body).toContain("- [ ] **1.** In `src/calc.py`, make `add` return `a + b`");
    expect(made!.body).toContain("**Files:** `src/calc.py`");
    // The plan was asked for in architect mode: no edit format in the prompt, and nothing was committed.
    expect(e2e.llm.requests).toHaveLength(1);
    expect(e2e.llm.requests[0]!.body.messages[0]!.content).toContain("architect engineer");
    expect(e2e.llm.requests[0]!.body.messages.map((m) => m.content).join("\n")).not.toContain("<<<<<<< SEARCH");
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.subject).toBe("x");

    // A read-only user ticks the box: nothing runs, the box is unticked, and they are told why.
    await e2e.send("issue_comment", e2e.editPayload(pr, made!.id, tick(made!.body), "rob"));
    await e2e.idle();
    expect(e2e.llm.requests).toHaveLength(1);
    expect(plans(e2e)[0]!.body).toContain("- [ ] **Approve and run this plan**");
    expect(e2e.repo.comments.some((c) => c.user === bot && c.body.includes("@rob") && c.body.includes("`write`"))).toBe(
      true,
    );

    // The maintainer ticks it: the editor gets the plan, one commit lands, and the plan's steps are ticked.
    await e2e.send("issue_comment", e2e.editPayload(pr, made!.id, tick(plans(e2e)[0]!.body), "ann"));
    await e2e.idle();
    const editor = coderRequests(e2e)[1]!.body;
    expect(editor.messages.at(-1)!.content).toContain("make `add` return `a + b` instead of `a - b`");
    expect(editor.messages[0]!.content).toContain("SEARCH");
    const log = await branchLog(e2e.fake, e2e.repo, "feature", 3);
    expect(log.map((c) => c.subject)).toEqual(["fix: make add add", "x", expect.any(String)]);
    const after = plans(e2e)[0]!.body;
    expect(after).toContain("- [x] **1.**");
    expect(after).toContain("- [x] **2.**");
    expect(after).toContain("- [x] **Approve and run this plan** — approved by @ann");
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(status).toContain("🚀 Pushed");
  });

  it("/aider approve with corrections runs the newest plan; a new plan supersedes the old; an approval after a human push is refused", async () => {
    e2e = await app.scenario({
      files,
      permissions: { ann: "write" },
      replies: [plan, plan, fix, commitReply("fix: make add add")],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider plan --file src/calc.py make add add", "ann"));
    await e2e.idle();
    await e2e.pushAs("feature", { "notes.md": "a human pushed\n" });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider approve", "ann"));
    await e2e.idle();
    const refusal = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(refusal).toContain("The branch moved since this plan was made");
    expect(e2e.llm.requests).toHaveLength(1);
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.subject).not.toMatch(/^fix/);

    // A fresh plan on the new head replaces the first one, which can no longer be approved.
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider plan --file src/calc.py make add add", "ann"));
    await e2e.idle();
    const [old, fresh] = plans(e2e);
    expect(old!.body).toContain("replaced by a newer one");
    expect(old!.body).not.toContain("- [ ] **Approve");
    expect(fresh!.body).toContain("- [ ] **Approve and run this plan**");

    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider approve keep the docstring short", "ann"));
    await e2e.idle();
    const editor = coderRequests(e2e)[2]!.body.messages.at(-1)!.content;
    expect(editor).toContain("make `add` return `a + b`");
    expect(editor).toContain("keep the docstring short");
    expect((await branchLog(e2e.fake, e2e.repo, "feature", 1))[0]!.subject).toBe("fix: make add add");
    expect(plans(e2e)[1]!.body).toContain("- [x] **1.**");
  });

  it("/aider plan drop drops the open plan: an approval then finds none", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [plan] });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider plan make add add", "ann"));
    await e2e.idle();
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider plan drop", "ann"));
    await e2e.idle();
    expect(plans(e2e)[0]!.body).toContain("dropped by @ann");
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider approve", "ann"));
    await e2e.idle();
    expect(e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body).toContain(
      "There is no open plan here to approve",
    );
    expect(e2e.llm.requests).toHaveLength(1);
  });

  it("the run's Check Run holds its transcript (answers, a failing check's output, no secret), linked from the status comment and printed by the CLI", async () => {
    const config =
      "test: \"grep -q 'a + b' src/calc.py || (echo 'TEST_MARK_FAILED: expected a + b'; exit 1)\"\nmax_reflections: 2\n";
    const wrong =
      "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a * b\n>>>>>>> REPLACE\n```\n";
    const right =
      "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a * b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [wrong, right, commitReply("fix: add adds")],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const { deliveryId } = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider --file src/calc.py make add add", "ann"),
    );
    await e2e.idle();
    const text = e2e.repo.checkRuns.at(-1)!.output?.text ?? "";
    expect(text).toContain("return a * b");
    expect(text).toContain("TEST_MARK_FAILED: expected a + b");
    expect(text).toContain("def add(a, b):");
    expect(text.length).toBeLessThanOrEqual(65_535);
    for (const secret of ["sk-e2e-model-key", e2e.secret, ...e2e.tokens()]) expect(text).not.toContain(secret);
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(status).toMatch(/📜 \[Run transcript\]\(http[^)]+\/runs\/\d+\)/);
    expect(status).toContain(`aider-bot transcript ${deliveryId}`);
    const printed = await promisify(execFile)(process.execPath, [CLI_MAIN, "transcript", deliveryId], {
      env: { PATH: process.env.PATH, AIDER_BOT_CACHE_DIR: path.join(e2e.home, "cache") },
    });
    expect(printed.stdout).toContain("TEST_MARK_FAILED");
    expect(printed.stdout).toContain("return a * b");
  });
});
