import { rm } from "node:fs/promises";
import path from "node:path";
import { branchLog } from "../../testkit/seed-repo.js";
import { stagesEntered, startE2EApp, UNSANDBOXED, type E2E, type E2EApp } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
// The test command sleeps only while the checkout holds the marker the first reply adds: the first attempt is still
// in its tests when the app is killed; the re-run (a fresh clone, the second reply) passes at once.
const config = 'test: "if grep -q SLOW src/calc.py; then sleep 600; fi"\n';
const slowFix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b  # SLOW\n>>>>>>> REPLACE\n```\n";
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

describe("e2e: crash recovery and shutdown (embedded store)", () => {
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    // A short lease, so a restarted app takes the dead process's job over quickly.
    app = await startE2EApp({ env: { ...UNSANDBOXED, AIDER_BOT_LEASE_MS: "1500", AIDER_BOT_SHUTDOWN_MS: "1000" } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const statusOf = (jobId: string) => () =>
    e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${jobId}`))?.body ?? "";
  // Job processes that entered the tests (the slow test command is then running); see stagesEntered.
  const inTests = () => stagesEntered(e2e.logs(), "tests");

  it("kill -9 mid-job, then restart: the job runs again from a fresh clone and finishes; nothing is left running", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [slowFix, fix, "fix: add"],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = inTests();
    const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const status = statusOf(sent.deliveryId);
    await waitUntil(
      () => inTests() === before + 1,
      () => `never reached the tests stage:\n${status()}\n${e2e.logs().slice(-3000)}`,
    );
    await app.stop("SIGKILL");
    await app.restart();
    await e2e.idle();
    expect(status()).toContain("🚀 Pushed");
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("fix: add");
    // One status comment, one Check Run (started at triage, completed by the re-run), nothing in progress.
    expect(e2e.repo.comments.filter((c) => c.user === bot)).toHaveLength(1);
    expect(e2e.repo.checkRuns).toHaveLength(1);
    expect(e2e.repo.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "success" });
  });

  it("kill -9 twice: past its attempts the job is reported, with /aider retry, and its Check Run completed", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [slowFix, slowFix],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = inTests();
    const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const status = statusOf(sent.deliveryId);
    for (let kill = 0; kill < 2; kill++) {
      await waitUntil(
        () => inTests() === before + kill + 1 && e2e.llm.remaining() === 1 - kill,
        () => `attempt ${kill + 1} never reached its tests:\n${status()}\n${e2e.logs().slice(-3000)}`,
      );
      await app.stop("SIGKILL");
      await app.restart();
    }
    await waitUntil(
      () => status().includes("💥 This run was interrupted"),
      () => `the lost job was not reported:\n${status()}\n${e2e.logs().slice(-3000)}`,
    );
    await e2e.idle();
    expect(status()).toContain("`/aider retry`");
    expect(e2e.repo.checkRuns.every((r) => r.status === "completed")).toBe(true);
    expect(e2e.repo.checkRuns[0]).toMatchObject({ conclusion: "failure" });
    expect(e2e.repo.reactions.map((r) => r.content)).toContain("confused");
  });

  it("a delivery redelivered after the app lost its queue data edits the run's status comment, never posts a second", async () => {
    e2e = await app.scenario({
      files,
      permissions: { ann: "write" },
      replies: ["`add` subtracts.", "`add` still subtracts."],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const payload = e2e.commentPayload(pr, "/aider ask --file src/calc.py why is add wrong?", "ann");
    const sent = await e2e.send("issue_comment", payload);
    await e2e.idle();
    expect(statusOf(sent.deliveryId)()).toContain("`add` subtracts.");
    // A container without a volume: the app comes back with no record of the delivery it handled.
    await app.stop("SIGTERM");
    await rm(path.join(e2e.home, "queue"), { recursive: true, force: true });
    await app.restart();
    expect((await e2e.send("issue_comment", payload, { deliveryId: sent.deliveryId })).status).toBe(200);
    await waitUntil(
      () => e2e.llm.remaining() === 0,
      () => `the redelivery did not run:\n${e2e.logs().slice(-3000)}`,
    );
    await e2e.idle();
    const mine = e2e.repo.comments.filter((c) => c.user === bot && c.body.includes(`aider-bot:run:${sent.deliveryId}`));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain("`add` still subtracts.");
  });

  it("SIGTERM: the running job and the one queued behind it are told they will run when the app is back", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [slowFix],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = inTests();
    const first = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const second = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider --file src/calc.py and then this", "ann"),
    );
    await waitUntil(
      () => inTests() === before + 1 && statusOf(second.deliveryId)().includes("⏳ **queued**"),
      () => `not running and queued:\n${e2e.logs().slice(-3000)}`,
    );
    await app.stop("SIGTERM");
    expect(statusOf(first.deliveryId)()).toContain("starts again from a fresh clone");
    expect(statusOf(second.deliveryId)()).toContain("stays queued and runs when the app is back");
  });
});
