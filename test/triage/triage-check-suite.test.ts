import pino from "pino";
import { autofixMarker } from "../../src/report/autofix-rounds.js";
import { parseWebhook } from "../../src/edge/parse-webhook.js";
import { triageCheckSuite } from "../../src/triage/triage-check-suite.js";
import type { RunJobInput } from "../../src/run/run-job-data.js";
import type { AppServices, TriageIo } from "../../src/triage/triage-services.js";
import { requestMarker, runMarker } from "../../src/github/markers.js";
import type { CheckSuiteCompletedEvent } from "@octokit/webhooks-types";
import { exampleInstallation, examplePayload } from "../../testkit/builders/webhook-payloads.js";
import nock from "nock";
import { GITHUB_API, testOctokit } from "../helpers/test-octokit.js";

const BOT = "aider-bot[bot]";
const SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const pushedStatus = (sha: string) =>
  `${runMarker("j1")}\n🚀 Pushed [\`${sha.slice(0, 7)}\`](https://github.com/Codertocat/Hello-World/commit/${sha}) to this pull request.\n${requestMarker({ verb: "run", text: "x", files: [] })}`;

/** GitHub's own example `check_suite.completed` payload (its PR #2 has head SHA), made a failure. */
function payload(
  over: { conclusion?: CheckSuiteCompletedEvent["check_suite"]["conclusion"]; slug?: string } = {},
): CheckSuiteCompletedEvent {
  const p = examplePayload("check_suite", "completed");
  p.check_suite.conclusion = over.conclusion ?? "failure";
  p.check_suite.app = { ...p.check_suite.app, id: 15368, slug: over.slug ?? "github-actions" };
  p.installation = exampleInstallation(1);
  return p;
}

function harness(opts: { config?: unknown; comments?: readonly { body: string; user: string }[]; head?: string } = {}) {
  const posted: { route: string; body: string }[] = [];
  const comments = (opts.comments ?? [{ body: pushedStatus(SHA), user: BOT }]).map((c, i) => ({
    id: i + 1,
    body: c.body,
    user: { login: c.user },
    created_at: `2026-01-0${i + 1}T00:00:00Z`,
  }));
  // GitHub's API for the example's repository (Codertocat/Hello-World, PR #2), through nock on the real client.
  const calls: string[] = [];
  const repo = "/repos/Codertocat/Hello-World";
  nock(GITHUB_API)
    .persist()
    .get(`${repo}/issues/2/comments`)
    .query(true)
    .reply(() => (calls.push("GET comments"), [200, comments]))
    .get(`${repo}/pulls/2`)
    .reply(() => {
      calls.push("GET pull");
      const head = {
        ref: "changes",
        sha: opts.head ?? SHA,
        repo: { full_name: "Codertocat/Hello-World", clone_url: "https://github.com/Codertocat/Hello-World.git" },
      };
      return [200, { title: "Update README", body: "body", head }];
    })
    .post(`${repo}/issues/2/comments`)
    .reply((_uri, body) => {
      calls.push("POST comment");
      posted.push({ route: "POST", body: (body as { body: string }).body });
      return [201, { id: 77 }];
    })
    .patch(/\/repos\/Codertocat\/Hello-World\/issues\/comments\/\d+$/)
    .reply((uri, body) => {
      calls.push("PATCH comment");
      posted.push({ route: "PATCH", body: (body as { body: string }).body });
      return [200, { id: Number(uri.split("/").pop()) }];
    });
  const api = testOctokit();
  const jobs: RunJobInput[] = [];
  const services: AppServices = {
    runs: {
      enqueue: async (j) => (jobs.some((x) => x.id === j.id) ? false : (jobs.push(j), true)),
      cancel: async () => ({ dropped: 0, aborted: 0 }),
    },
    botLogin: async () => BOT,
    defaults: { model: "gpt-4o" },
  };
  const io: TriageIo = {
    api,
    loadConfig: async () => opts.config ?? { ci: { autofix: true, max_rounds: 2 } },
    log: pino({ level: "silent" }),
  };
  /** The payload through the edge, then triaged. */
  const triage = (p: unknown) => {
    const parsed = parseWebhook("check_suite", p, "d-1");
    if (!parsed.ok || parsed.event.kind !== "check-suite") throw new Error(JSON.stringify(parsed));
    return triageCheckSuite(parsed.event, io, services);
  };
  return { triage, services, calls, posted, jobs };
}

describe("triageCheckSuite (ci.autofix)", () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());
  it("a failed suite on the bot's commit queues a fix-ci run with the round in its status comment", async () => {
    const h = harness();
    const out = await h.triage(payload());
    expect(out).toMatchObject({ kind: "enqueued", jobId: `autofix-Codertocat.Hello-World-2-${SHA.slice(0, 12)}` });
    const req = h.jobs[0]!.data.req;
    expect(h.jobs[0]!.key).toBe("Codertocat/Hello-World#2");
    expect(req.context!.mode).toEqual({ kind: "fix-ci", extra: "", autofix: { round: 1, maxRounds: 2, sha: SHA } });
    expect(req.target).toMatchObject({
      kind: "pull-request",
      number: 2,
      headRef: "changes",
      headSha: SHA,
      isFork: false,
    });
    expect(req.requester.login).toBe(BOT);
    expect(h.jobs[0]!.data.statusCommentId).toBe(77);
    expect(h.posted[0]!.body).toContain(autofixMarker(1, SHA));
    expect(h.posted[0]!.body).toContain("automatic CI fix, round 1 of 2");
  });

  it.each([
    ["ci.autofix off", { config: {} }, payload()],
    ["a passing suite", {}, payload({ conclusion: "success" })],
    ["the bot's own suite", {}, payload({ slug: "aider-bot" })],
    ["a person's commit", { comments: [{ body: "looks good", user: "ann" }] }, payload()],
    ["a forged status comment", { comments: [{ body: pushedStatus(SHA), user: "mallory" }] }, payload()],
    [
      "a fix already ran for this commit",
      {
        comments: [
          { body: pushedStatus(SHA), user: BOT },
          { body: `${runMarker("a")}\n${autofixMarker(1, SHA)}`, user: BOT },
        ],
      },
      payload(),
    ],
    ["the head moved on", { head: "f".repeat(40) }, payload()],
  ] as const)("ignores %s", async (_name, opts, p) => {
    const h = harness(opts);
    const out = await h.triage(p);
    expect(out.kind).toBe("ignored");
    expect(h.jobs).toEqual([]);
    expect(h.posted).toEqual([]);
  });

  it("does not even read the PR when the suite passed or autofix is off", async () => {
    for (const [opts, p] of [
      [{}, payload({ conclusion: "success" })],
      [{ config: {} }, payload()],
    ] as const) {
      const h = harness(opts);
      await h.triage(p);
      expect(h.calls).toEqual([]);
    }
  });

  it("after max_rounds it says so once (a later suite edits the same note) and queues nothing", async () => {
    const other = "1".repeat(40);
    const comments = [
      { body: pushedStatus(SHA), user: BOT },
      { body: `${runMarker("a")}\n${autofixMarker(1, other)}`, user: BOT },
      { body: `${runMarker("b")}\n${autofixMarker(2, "2".repeat(40))}`, user: BOT },
    ];
    const h = harness({ comments });
    expect(await h.triage(payload())).toEqual({
      kind: "replied",
      reason: "autofix limit reached",
    });
    expect(h.jobs).toEqual([]);
    expect(h.posted).toHaveLength(1);
    expect(h.posted[0]!.body).toContain(
      "<!-- aider-bot:autofix-stop:2 -->\n🛑 Checks still fail after 2 automatic fixes (`ci.max_rounds: 2`); I stop here.",
    );
  });
});
