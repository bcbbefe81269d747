import { isCommitMessageRequest } from "../../testkit/scripted-llm-server.js";
import { startE2EApp, type E2E, type E2EApp } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";
import { describeWith } from "../helpers/needs.js";
import { startRedisServer } from "../jobs/redis-server.js";

const bot = "aider-bot[bot]";
const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
// One call's estimate (prompt + gpt-4o's 16,384 output tokens) fits in 30,000 tokens, two do not; the answer
// reports 21,000 tokens, so no second call fits after it either.
const limited = "budget:\n  day_tokens: 30000\n";

describeWith("redis", "e2e: spend limits across two workers on Redis", () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    redis = await startRedisServer();
    // One job at a time per worker: the two runs started together run on the two workers, at the same time.
    app = await startE2EApp({ workers: { redisUrl: redis.url, count: 2 }, env: { AIDER_BOT_CONCURRENCY: "1" } });
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  const statusOf = (jobId: string) => () =>
    e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${jobId}`))?.body ?? "";
  const ranOn = (jobId: string) =>
    app.workerLogs().findIndex((log) => new RegExp(`"job":"${jobId}"[^\\n]*"msg":"job process starting"`).test(log));

  it("two runs started at once on two workers against a limit that fits one: exactly one model call goes out", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": limited },
      permissions: { ann: "write" },
      replies: [{ text: fix, usage: { prompt_tokens: 1_000, completion_tokens: 20_000 } }],
    });
    const one = await e2e.pr({ title: "one", head: "one", user: "ann", files: { "x.md": "x\n" } });
    const two = await e2e.pr({ title: "two", head: "two", user: "ann", files: { "y.md": "y\n" } });
    const [a, b] = await Promise.all([
      e2e.send("issue_comment", e2e.commentPayload(one, "/aider --file src/calc.py fix add", "ann")),
      e2e.send("issue_comment", e2e.commentPayload(two, "/aider --file src/calc.py fix add", "ann")),
    ]);
    const statuses = () => [statusOf(a.deliveryId)(), statusOf(b.deliveryId)()];
    await waitUntil(
      () => statuses().every((s) => s.includes("🚀") || s.includes("🛑")),
      () =>
        `${statuses().join("\n---\n")}\n${app
          .workerLogs()
          .map((l) => l.slice(-2000))
          .join("\n---\n")}`,
    );
    await e2e.idle();
    expect(e2e.llm.requests.filter((r) => !isCommitMessageRequest(r.body))).toHaveLength(1);
    expect(statuses().filter((s) => s.includes("🚀 Pushed"))).toHaveLength(1);
    const refused = statuses().filter((s) => s.includes("🛑"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("Spend limit reached: this repository's daily limit is 30,000 tokens");
    expect(refused[0]).toContain("No model call was made.");
    // Each worker ran one of them: the limit held across processes (the ledger is shared, not per worker).
    expect([ranOn(a.deliveryId), ranOn(b.deliveryId)].sort()).toEqual([0, 1]);
  });
});
