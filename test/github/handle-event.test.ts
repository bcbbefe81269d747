import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { handleEvent, type HandleResult } from "../../src/github/handle-event.js";
import type { JobQueue, QueuedJob } from "../../src/jobs/job-queue.js";
import type { RunRequest } from "../../src/run/run-request.js";

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as { name: string; examples: Record<string, any>[] }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
const example = (name: string, action: string) => structuredClone(examples.find((e) => e.name === name)!.examples.find((x) => x.action === action)!);
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
const API = "https://api.github.com";
const REPO = "/repos/Codertocat/Hello-World";

describe("handleEvent with Probot, nock and example payloads", () => {
  let probot: Probot;
  let enqueued: QueuedJob<RunRequest>[];
  let results: HandleResult[];

  beforeEach(async () => {
    nock.disableNetConnect();
    enqueued = [];
    results = [];
    const queue: JobQueue<RunRequest> = {
      enqueue: (job) => (enqueued.some((j) => j.id === job.id) ? false : (enqueued.push(job), true)),
      seen: (id) => enqueued.some((j) => j.id === id),
      cancel: () => 0, idle: async () => undefined, shutdown: async () => [], stats: () => ({ running: 0, queued: enqueued.length }),
    };
    probot = new Probot({ appId: 1, privateKey, secret: "s", Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })), logLevel: "fatal" });
    await probot.load((app) => {
      app.on(["issue_comment.created", "issues.labeled"], async (context) => {
        results.push(
          await handleEvent(
            { name: context.name, id: context.id, payload: context.payload, api: context.octokit as never, loadConfig: () => context.config("aider.yml"), log: context.log },
            { queue, botLogin: async () => "aider-bot[bot]", defaults: { model: "gpt-4o" } },
          ),
        );
      });
    });
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending).toEqual([]);
  });

  const token = () => nock(API).post("/app/installations/1/access_tokens").reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" });
  const noConfig = () => nock(API).get(`${REPO}/contents/.github%2Faider.yml`).reply(404).get("/repos/Codertocat/.github/contents/.github%2Faider.yml").reply(404);
  const comment = (body: string) => {
    const p = example("issue_comment", "created");
    p.installation = { id: 1 };
    p.comment.body = body;
    p.sender.type = "User";
    delete p.issue.pull_request;
    return p;
  };

  it("ignores a comment without a command, making no API call", async () => {
    await probot.receive({ id: "d0", name: "issue_comment", payload: comment("Looks good to me") as never });
    expect(results).toEqual([{ kind: "ignored", reason: "no command" }]);
  });

  it("authorizes, reacts 👀, posts the queued status and enqueues the job for an issue comment", async () => {
    token();
    noConfig();
    nock(API)
      .get(`${REPO}/collaborators/Codertocat/permission`).reply(200, { permission: "admin", role_name: "admin" })
      .post(/\/reactions$/, { content: "eyes" }).reply(201, {})
      .get(`${REPO}/issues/1/comments`).query(true).reply(200, [])
      .post(`${REPO}/issues/1/comments`, (b: { body: string }) => b.body.includes("<!-- aider-bot:run:d1 -->") && b.body.includes("⏳ **queued**")).reply(201, { id: 55 });
    await probot.receive({ id: "d1", name: "issue_comment", payload: comment("/aider --file src/a.ts add retry logic") as never });
    expect(results).toEqual([{ kind: "enqueued", jobId: "d1" }]);
    const job = enqueued[0]!;
    expect(job.key).toBe("Codertocat/Hello-World#1");
    expect(job.data).toMatchObject({ verb: "run", message: "add retry logic", files: ["src/a.ts"], statusCommentId: 55, target: { kind: "issue", number: 1 }, requester: { login: "Codertocat" } });
    expect(job.data.untrustedContext[0]!.label).toBe("issue #1: title and description");
  });

  it("replies once to a user without permission", async () => {
    token();
    noConfig();
    nock(API)
      .get(`${REPO}/collaborators/Codertocat/permission`).reply(200, { permission: "read", role_name: "read" })
      .get(`${REPO}/issues/1/comments`).query(true).times(2).reply(200, [])
      .post(`${REPO}/issues/1/comments`, (b: { body: string }) => b.body.includes("needs `write` permission")).reply(201, { id: 56 });
    await probot.receive({ id: "d2", name: "issue_comment", payload: comment("/aider fix it") as never });
    expect(results).toEqual([{ kind: "replied", reason: "unauthorized" }]);
    expect(enqueued).toEqual([]);
  });

  it("refuses a model the config does not allow", async () => {
    token();
    nock(API)
      .get(`${REPO}/contents/.github%2Faider.yml`).reply(200, "model: gpt-4o\nallowed_models: [gpt-4o-mini]\n", { "content-type": "text/plain; charset=utf-8" })
      .get(`${REPO}/collaborators/Codertocat/permission`).reply(200, { permission: "write", role_name: "write" })
      .post(`${REPO}/issues/1/comments`, (b: { body: string }) => b.body.includes("Model `o1` is not allowed")).reply(201, { id: 57 });
    await probot.receive({ id: "d3", name: "issue_comment", payload: comment("/aider --model o1 fix it") as never });
    expect(results[0]).toMatchObject({ kind: "replied" });
    expect(enqueued).toEqual([]);
  });

  it("ignores a label that is not the trigger label", async () => {
    noConfig();
    token();
    const p = example("issues", "labeled");
    p.installation = { id: 1 };
    p.label = { name: "bug" };
    await probot.receive({ id: "d4", name: "issues", payload: p as never });
    expect(results).toEqual([{ kind: "ignored", reason: "not labelled aider" }]);
  });
});
