import { startE2E, type E2E } from "../helpers/e2e-harness.js";
import { histogramCount, labelValues, parseMetrics, sample, type Families } from "../helpers/scrape-metrics.js";

const TOKEN = "e2e-metrics-token-0123456789";
const files = { "src/greet.ts": 'export const greet = (name: string) => "hi " + name;\n' };
// No files named: the model first sees the repo map and asks for the file, then edits it.
const ask = "I need to edit this file:\n\nsrc/greet.ts\n";
const edit =
  'src/greet.ts\n```ts\n<<<<<<< SEARCH\nexport const greet = (name: string) => "hi " + name;\n=======\nexport const greet = (name: string) => `hello ${name}`;\n>>>>>>> REPLACE\n```\n';

/** The series issue #35 asks for, each with the labels it may carry. */
const SERIES: Record<string, string[]> = {
  aider_bot_runs_total: ["trigger", "outcome"],
  aider_bot_run_duration_seconds: [],
  aider_bot_model_tokens_total: ["model", "kind"],
  aider_bot_model_cost_usd_total: ["model"],
  aider_bot_spend_refusals_total: ["limit"],
  aider_bot_queue_jobs: ["state"],
  aider_bot_webhook_ack_seconds: [],
  aider_bot_github_rate_limit_remaining: ["installation"],
};

describe("e2e: /metrics", () => {
  let e2e: E2E;
  afterAll(async () => {
    await e2e?.close();
  });

  it("serves every series behind the bearer token, and they move as a run happens", async () => {
    e2e = await startE2E({
      files,
      permissions: { maintainer: "write" },
      replies: [ask, edit, "refactor: greet with a template"],
      env: { AIDER_BOT_METRICS_TOKEN: TOKEN, AIDER_BOT_SCHEDULES: "off" },
    });
    const url = `${new URL(e2e.webhookUrl).origin}/metrics`;
    const scrape = async (): Promise<Families> => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      return parseMetrics(await res.text());
    };
    expect((await fetch(url)).status).toBe(401);
    const before = await scrape();
    for (const name of Object.keys(SERIES)) expect(before.map((f) => f.name)).toContain(name);
    expect(sample(before, "aider_bot_runs_total", { trigger: "comment", outcome: "pushed" })).toBe(0);

    const pr = await e2e.pr({ title: "Greeting", head: "greeting", user: "maintainer", files: { "notes.md": "x\n" } });
    const res = await e2e.send(
      "issue_comment",
      e2e.commentPayload(pr, "/aider use a template literal in greet", "maintainer"),
      {},
    );
    expect(res.status).toBeLessThan(300);
    await e2e.idle();
    const after = await scrape();
    if (process.env.E2E_DEBUG)
      console.log(
        JSON.stringify(after.find((f) => f.name === "aider_bot_runs_total")),
        e2e.repo.comments.map((c) => c.body).join("\n---\n"),
      );
    expect(sample(after, "aider_bot_runs_total", { trigger: "comment", outcome: "pushed" })).toBe(1);
    expect(histogramCount(after, "aider_bot_run_duration_seconds")).toBe(1);
    expect(sample(after, "aider_bot_model_tokens_total", { model: "gpt-4o", kind: "prompt" })).toBeGreaterThan(0);
    expect(sample(after, "aider_bot_model_tokens_total", { model: "gpt-4o", kind: "completion" })).toBeGreaterThan(0);
    expect(sample(after, "aider_bot_model_cost_usd_total", { model: "gpt-4o" })).toBeGreaterThan(0);
    expect(histogramCount(after, "aider_bot_webhook_ack_seconds")).toBeGreaterThanOrEqual(1);
    // The fake GitHub answers with x-ratelimit-remaining like GitHub; installation 1 is the only one installed.
    expect(labelValues(after, "aider_bot_github_rate_limit_remaining", "installation")).toContain("1");
    expect(sample(after, "aider_bot_github_rate_limit_remaining", { installation: "1" })).toBeGreaterThan(0);
    expect(sample(after, "aider_bot_queue_jobs", { state: "queued" })).toBe(0);
    expect(labelValues(after, "aider_bot_queue_jobs", "state").sort()).toEqual(["queued", "running"]);

    // No series carries an unbounded label: only the labels above, with values from fixed or configured sets.
    for (const family of after.filter((f) => f.name in SERIES)) {
      for (const m of family.metrics) {
        const labels = Object.keys(m.labels ?? {}).filter((l) => l !== "le");
        expect(labels.sort()).toEqual([...SERIES[family.name]!].sort());
      }
    }
    expect(labelValues(after, "aider_bot_model_tokens_total", "kind").sort()).toEqual([
      "cache_read",
      "cache_write",
      "completion",
      "prompt",
    ]);
    const text = await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    for (const secret of [TOKEN, "sk-e2e-model-key", ...e2e.tokens(), "maintainer", "template literal"])
      expect(text).not.toContain(secret);
  });
});
