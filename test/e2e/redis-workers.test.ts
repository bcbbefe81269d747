import { Redis } from "ioredis";
import { branchLog } from "../../testkit/seed-repo.js";
import { stagesEntered, startE2EApp, UNSANDBOXED, type E2E, type E2EApp } from "../helpers/e2e-harness.js";
import { describeWith } from "../helpers/needs.js";
import { waitUntil } from "../helpers/wait-until.js";
import { startRedisServer } from "../jobs/redis-server.js";

const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
// The test command sleeps only while the checkout holds the marker the slow reply adds (see crash-recovery.test.ts).
const config = 'test: "if grep -q SLOW src/calc.py; then sleep 600; fi"\n';
const slowFix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b  # SLOW\n>>>>>>> REPLACE\n```\n";
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const bot = "aider-bot[bot]";

describeWith("redis", "e2e: a receiver and two workers on Redis", () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startE2EApp({
      workers: { redisUrl: redis.url, count: 2 },
      env: { ...UNSANDBOXED, AIDER_BOT_LEASE_MS: "2000" },
    });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  const statusOf = (jobId: string) => () =>
    e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${jobId}`))?.body ?? "";
  const runnerOf = (jobId: string) =>
    app.workerLogs().findIndex((log) => new RegExp(`"job":"${jobId}"[^\\n]*"msg":"job process starting"`).test(log));

  it("a redelivery during and after the original makes no second comment or run", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const payload = e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann");
    const sent = await e2e.send("issue_comment", payload);
    await e2e.send("issue_comment", payload, { deliveryId: sent.deliveryId });
    await e2e.idle();
    await e2e.send("issue_comment", payload, { deliveryId: sent.deliveryId });
    await e2e.idle();
    expect(e2e.repo.comments.filter((c) => c.user === bot)).toHaveLength(1);
    expect(statusOf(sent.deliveryId)()).toContain("🚀 Pushed");
    expect(e2e.llm.requests).toHaveLength(2);
    const log = await branchLog(e2e.fake, e2e.repo, "feature", 2);
    expect(log.map((c) => c.subject)).toEqual(["fix: add", "x"]);
  });

  it("SIGKILL the worker running a job: the other worker runs it again and it finishes once", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [slowFix, fix, "fix: add"],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = stagesEntered(e2e.logs(), "tests");
    const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const status = statusOf(sent.deliveryId);
    await waitUntil(
      () => stagesEntered(e2e.logs(), "tests") > before && runnerOf(sent.deliveryId) >= 0,
      () => `never reached the tests stage:\n${status()}\n${e2e.logs().slice(-3000)}`,
    );
    const victim = runnerOf(sent.deliveryId);
    await app.stopWorker(victim, "SIGKILL");
    await waitUntil(
      () => status().includes("🚀 Pushed"),
      () => `the job did not finish on the other worker:\n${status()}\n${app.workerLogs()[1 - victim]!.slice(-3000)}`,
    );
    await e2e.idle();
    const log = await branchLog(e2e.fake, e2e.repo, "feature", 2);
    expect(log.map((c) => c.subject)).toEqual(["fix: add", "x"]);
    expect(e2e.repo.comments.filter((c) => c.user === bot)).toHaveLength(1);
    expect(e2e.repo.checkRuns).toHaveLength(1);
    expect(e2e.repo.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "success" });
  });

  it("/aider cancel reaches the worker running the job, whichever worker triages it", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": config },
      permissions: { ann: "write" },
      replies: [slowFix],
    });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const before = stagesEntered(e2e.logs(), "tests");
    const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
    const status = statusOf(sent.deliveryId);
    await waitUntil(
      () => stagesEntered(e2e.logs(), "tests") > before,
      () => `never reached the tests stage:\n${status()}\n${e2e.logs().slice(-3000)}`,
    );
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider cancel", "ann"));
    await waitUntil(
      () => status().includes("Cancelled on request"),
      () => `the running job was not cancelled:\n${status()}\n${e2e.logs().slice(-3000)}`,
    );
    await e2e.idle();
    expect(e2e.repo.comments.some((c) => /^<!-- aider-bot:reply:\S+ -->\n🛑 Cancelled 1 request\.$/.test(c.body))).toBe(
      true,
    );
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).toBe("x");
  });

  it("the receiver killed after answering a delivery, before queueing it: a worker's sweep queues it and it runs once", async () => {
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [fix, "fix: add"] });
    const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
    const raw = new Redis(redis.url);
    try {
      // BullMQ's add takes the queue's job counter first: a counter that is not a number makes every add fail, so
      // the receiver's move into BullMQ cannot happen while it lives.
      await raw.set("aider-bot-triage:jobs:id", "not a number");
      const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
      expect(sent.status).toBe(200); // recorded: GitHub is told the delivery arrived
      await waitUntil(
        () => /"msg":"job engine error"/.test(e2e.logs()),
        () => `the failed move was not reported:\n${e2e.logs().slice(-3000)}`,
      );
      await app.stop("SIGKILL");
      await raw.del("aider-bot-triage:jobs:id");
      await waitUntil(
        () => statusOf(sent.deliveryId)().includes("🚀 Pushed"),
        () =>
          `the recorded delivery never ran:\n${statusOf(sent.deliveryId)()}\n${app
            .workerLogs()
            .map((l) => l.slice(-2000))
            .join("\n---\n")}`,
      );
      const log = await branchLog(e2e.fake, e2e.repo, "feature", 2);
      expect(log.map((c) => c.subject)).toEqual(["fix: add", "x"]);
      expect(e2e.repo.comments.filter((c) => c.user === bot)).toHaveLength(1);
      expect(await raw.hlen("aider-bot-triage:x:outbox")).toBe(0);
    } finally {
      raw.disconnect();
      await app.restart();
    }
  });
});
