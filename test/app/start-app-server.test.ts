import { createHmac, generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { examplePayload } from "#testkit/builders/webhook-payloads.js";
import { sendWebhook } from "#testkit/send-webhook.js";
import { rawPost } from "../helpers/raw-post.js";
import { stalledPost, type StalledPost } from "../helpers/stalled-post.js";
import { startAppServer, type AppServer } from "../../src/app/start-app-server.js";
import { readEnv } from "../../src/config/env.js";

const SECRET = "server-test-webhook-secret";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 1024,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

describe("startAppServer webhook intake", () => {
  let server: AppServer;
  let lines: string[];
  let dataDir: string;
  beforeEach(async () => {
    lines = [];
    dataDir = await mkdtemp(path.join(os.tmpdir(), "server-test-queue-"));
    const env = readEnv({
      APP_ID: "1",
      WEBHOOK_SECRET: SECRET,
      PORT: "0",
      AIDER_BOT_SCHEDULES: "off",
      LOG_LEVEL: "debug",
      GITHUB_API_URL: "http://127.0.0.1:9/api/v3",
      OPENAI_API_KEY: "sk-server-test-model-key-0123456789",
      AIDER_BOT_DATA_DIR: dataDir,
    });
    // The intake alone: no job process is started (from the sources, each would compile TypeScript through tsx).
    server = await startAppServer(env, privateKey, {
      throttle: false,
      work: false,
      logSink: { write: (l) => lines.push(l) },
    });
  });
  afterEach(async () => {
    await server.shutdown(1000);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("logs a few hundred bytes, not the body, for a 1 MB delivery with a wrong signature", async () => {
    const body = JSON.stringify({ action: "created", comment: { body: "B".repeat(1024 * 1024) } });
    const res = await fetch(server.webhookUrl, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "big-1",
        "x-hub-signature-256": `sha256=${createHmac("sha256", "wrong").update(body).digest("hex")}`,
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const logged = lines.join("");
    expect(logged.length).toBeLessThan(4096);
    expect(logged).not.toContain("BBBB");
    expect(logged).toContain("big-1");
  });

  const signedPost = (id: string, payload: unknown, secret = SECRET) =>
    sendWebhook({ url: server.webhookUrl, secret, event: "issue_comment", payload, deliveryId: id });

  it("answers a signed delivery that lacks a field of its kind 400 with the field, logs its delivery and reason, never the payload, and queues nothing", async () => {
    // GitHub's example is a repository webhook's; an App's delivery names its installation.
    const good = {
      ...examplePayload("issue_comment", "created"),
      installation: { id: 7, node_id: "MDIzOkluc3RhbGxhdGlvbjc=" },
    };
    good.comment.body = "/aider fix it PAYLOAD-MARKER";
    const { installation: _dropped, ...malformed } = good;

    const refused = await signedPost("malformed-1", malformed);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      message: "issue_comment payload refused: installation.id should be an integer, but is missing",
    });
    expect(await server.app.stats()).toMatchObject({ queued: 0 });
    const logged = lines.join("");
    expect(logged).not.toContain("PAYLOAD-MARKER");
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "webhook refused" && "reason" in l);
    expect(line).toMatchObject({ delivery: "malformed-1", reason: expect.stringContaining("installation.id") });

    // Badly signed, the same body is still refused before it is parsed; the well-formed one is queued.
    expect((await signedPost("malformed-2", malformed, "wrong")).status).toBe(401);
    expect((await signedPost("good-1", good)).status).toBe(200);
    expect(await server.app.stats()).toMatchObject({ queued: 1 });
  });

  it("answers 413 to a body over GitHub's 25 MB cap from its Content-Length", async () => {
    const head = {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": "huge-1",
      "x-hub-signature-256": "sha256=00",
      "content-length": String(26 * 1024 * 1024),
    };
    const status = await rawPost(server.webhookUrl, head, (socket) => socket.write("{"));
    expect(status).toBe(413);
  });

  it("keeps the App key, webhook secret and model key out of the log", async () => {
    server.probot.log.error(
      { detail: `${privateKey} ${SECRET} sk-server-test-model-key-0123456789` },
      `echo ${privateKey.split("\n")[2]}`,
    );
    const logged = lines.join("");
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain("sk-server-test-model-key-0123456789");
    for (const line of privateKey.trim().split("\n").slice(1, -1)) expect(logged).not.toContain(line);
  });

  it("leaves no process behind once shut down, though the sandbox probe for /healthz was still running", async () => {
    // The probe (podman, then bubblewrap, under the default `auto`) starts with the server; shutdown stops it.
    await server.shutdown(1000);
    expect(process.getActiveResourcesInfo().filter((r) => r === "ProcessWrap")).toEqual([]);
  });
});

describe("startAppServer webhook intake under strangers' stalled bodies", () => {
  let server: AppServer | undefined;
  let dataDir: string;
  let stalls: StalledPost[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "server-test-queue-"));
    const env = readEnv({
      APP_ID: "1",
      WEBHOOK_SECRET: SECRET,
      PORT: "0",
      AIDER_BOT_SCHEDULES: "off",
      LOG_LEVEL: "silent",
      GITHUB_API_URL: "http://127.0.0.1:9/api/v3",
      AIDER_BOT_DATA_DIR: dataDir,
      ...extra,
    });
    server = await startAppServer(env, privateKey, { throttle: false, work: false, logSink: { write: () => 0 } });
    return server;
  };
  afterEach(async () => {
    for (const s of stalls) s.close();
    stalls = [];
    await server?.shutdown(1000);
    server = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });
  const unsignedHead = (id: string, bytes: number) => ({
    "content-type": "application/json",
    "x-github-event": "issue_comment",
    "x-github-delivery": id,
    "x-hub-signature-256": "sha256=00",
    "content-length": String(bytes),
  });
  const deliver = (url: string, id: string) => {
    const payload = {
      ...examplePayload("issue_comment", "created"),
      installation: { id: 7, node_id: "MDIzOkluc3RhbGxhdGlvbjc=" },
    };
    payload.comment.body = "/aider hello";
    return sendWebhook({ url, secret: SECRET, event: "issue_comment", payload, deliveryId: id });
  };

  it("accepts a real signed delivery while four unsigned 25 MB bodies hold the whole large-body budget", async () => {
    const s = await start();
    const full = 25 * 1024 * 1024;
    const sent = Buffer.alloc(full - 1, 0x61);
    stalls = [1, 2, 3, 4].map((n) => stalledPost(s.webhookUrl, unsignedHead(`stall-${n}`, full), sent));
    await Promise.all(stalls.map((st) => st.written));
    // Wait until the server has read (and charged) what the strangers sent.
    while (s.intakeStats().bufferedBytes < 4 * (full - 1)) await new Promise((r) => setImmediate(r));
    const res = await deliver(s.webhookUrl, "real-1");
    expect(res.status).toBe(200);
    // The strangers' bodies were still held: room was kept for the real delivery, not made by cutting them.
    expect(s.intakeStats().bufferedBytes).toBeGreaterThanOrEqual(4 * (full - 1));
  });

  it("cuts a stalled body after the body deadline (408) and gives its bytes back", async () => {
    const s = await start({ AIDER_BOT_WEBHOOK_BODY_TIMEOUT_MS: "1500" });
    const stall = stalledPost(s.webhookUrl, unsignedHead("stall-slow", 1024 * 1024), Buffer.alloc(1000, 0x61));
    stalls = [stall];
    expect(await stall.answer).toBe(408);
    expect(s.intakeStats().bufferedBytes).toBe(0);
    expect(s.intakeStats().peakBufferedBytes).toBe(1000);
    expect((await deliver(s.webhookUrl, "real-2")).status).toBe(200);
  });

  it("closes a connection whose headers never finish", async () => {
    const s = await start({ AIDER_BOT_WEBHOOK_BODY_TIMEOUT_MS: "1500" });
    const { port } = new URL(s.webhookUrl);
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.write("POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\nx-github-event: issues\r\n");
    await new Promise<void>((resolve) => socket.on("close", () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});
