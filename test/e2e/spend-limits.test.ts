import { isCommitMessageRequest } from "../../testkit/scripted-llm-server.js";
import { startE2EApp, type E2E, type E2EApp } from "../helpers/e2e-harness.js";
import { waitUntil } from "../helpers/wait-until.js";

const bot = "aider-bot[bot]";
const files = { "src/calc.py": "def add(a, b):\n    return a - b\n" };
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
// One call's estimate is its prompt (~1-2k tokens) plus gpt-4o's output limit (16,384): one fits in 30,000, two do
// not. The answer reports 21,000 tokens used, so no second call fits after it either, whichever run goes first. The
// pull request's limit (the same) holds the run after the restart, so the test does not depend on the day's end.
const limited = "budget:\n  day_tokens: 30000\n  pr_tokens: 30000\n";
const bigAnswer = { text: fix, usage: { prompt_tokens: 1_000, completion_tokens: 20_000 } };

describe("e2e: spend limits and model fallback (embedded)", () => {
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    app = await startE2EApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  const botComments = () => e2e.repo.comments.filter((c) => c.user === bot);
  const statusOf = (jobId: string) => () =>
    e2e.repo.comments.find((c) => c.user === bot && c.body.includes(`aider-bot:run:${jobId}`))?.body ?? "";
  const editCalls = () => e2e.llm.requests.filter((r) => !isCommitMessageRequest(r.body));

  it("two runs at once against a limit that fits one: one model call, the other run refused; the ledger survives a restart", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": limited },
      permissions: { ann: "write" },
      replies: [bigAnswer],
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
      () => `${statuses().join("\n---\n")}\n${e2e.logs().slice(-3000)}`,
    );
    await e2e.idle();
    expect(editCalls()).toHaveLength(1);
    const pushed = statuses().filter((s) => s.includes("🚀 Pushed"));
    const refused = statuses().filter((s) => s.includes("🛑"));
    expect(pushed).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("Spend limit reached: this repository's daily limit is 30,000 tokens");
    expect(refused[0]).toMatch(/It resets at \d{4}-\d\d-\d\d 00:00 \(UTC\)\./);
    expect(refused[0]).toContain("No model call was made.");

    // The app restarts on the same data dir: the day's spend is still there, so the next run is refused too.
    await app.stop("SIGTERM");
    await app.restart();
    const spentOn = statusOf(a.deliveryId)().includes("🚀") ? one : two;
    const third = await e2e.send(
      "issue_comment",
      e2e.commentPayload(spentOn, "/aider --file src/calc.py fix it again", "ann"),
    );
    await waitUntil(
      () => statusOf(third.deliveryId)().includes("🛑"),
      () => `${statusOf(third.deliveryId)()}\n${e2e.logs().slice(-3000)}`,
    );
    expect(statusOf(third.deliveryId)()).toContain(
      "this pull request's or issue's limit is 30,000 tokens; 21,000 tokens spent",
    );
    expect(statusOf(third.deliveryId)()).toContain("It does not reset");
    expect(editCalls()).toHaveLength(1);

    const usage = await e2e.send("issue_comment", e2e.commentPayload(two, "/aider usage", "ann"));
    await e2e.idle();
    const reply = botComments().find((c) => c.body.includes(`aider-bot:reply:${usage.deliveryId}`));
    // gpt-4o's price: 1,000 × $2.50 + 20,000 × $10 per million tokens.
    expect(reply?.body).toContain("| This repository this month | $0.2025 | 21,000 |");
    expect(reply?.body).toMatch(/\| This repository today \| \$0\.\d{4} \| [\d,]+ of 30,000 \|/);
  });

  it("the model answers 429 with retry-after: 3600 and then 500: the fallback model answers and the status names it", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": "fallback_models: [gpt-4o-mini]\n" },
      permissions: { ann: "write" },
      replies: [fix],
    });
    e2e.llm.forModel("gpt-4o", {
      replies: [{ status: 429, headers: { "retry-after": "3600" } }],
      standing: { status: 500 },
    });
    try {
      const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
      const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
      await e2e.idle();
      const status = statusOf(sent.deliveryId)();
      expect(status).toContain("🚀 Pushed");
      expect(status).toContain("answered by `gpt-4o-mini`");
      const models = e2e.llm.requests.map((r) => r.body.model);
      // The 429 was not waited for: the next request went to the fallback at once.
      expect(models.slice(0, 2)).toEqual(["gpt-4o", "gpt-4o-mini"]);
      // The commit subject's call found gpt-4o down (500) and was answered by the fallback too.
      expect(models.filter((m) => m === "gpt-4o").length).toBeGreaterThanOrEqual(2);
      expect(botComments()).toHaveLength(1);
    } finally {
      e2e.llm.forModel("gpt-4o", null);
    }
  });

  it("every model down: one failure comment that names each model's failure", async () => {
    e2e = await app.scenario({
      files: { ...files, ".github/aider.yml": "fallback_models: [gpt-4o-mini]\n" },
      permissions: { ann: "write" },
      replies: [],
    });
    e2e.llm.forModel("gpt-4o", { standing: { status: 500 } });
    e2e.llm.forModel("gpt-4o-mini", { standing: { status: 503 } });
    try {
      const pr = await e2e.pr({ title: "x", head: "feature", user: "ann", files: { "x.md": "x\n" } });
      const sent = await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider --file src/calc.py fix add", "ann"));
      await e2e.idle();
      const status = statusOf(sent.deliveryId)();
      expect(status).toContain("😕 The model call failed: every model failed");
      expect(status).toContain("`gpt-4o`: ");
      expect(status).toContain("`gpt-4o-mini`: ");
      expect(status).toContain("HTTP 503");
      expect(botComments()).toHaveLength(1);
    } finally {
      e2e.llm.forModel("gpt-4o", null);
      e2e.llm.forModel("gpt-4o-mini", null);
    }
  });
});
