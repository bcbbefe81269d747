import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { rawPost } from "../helpers/raw-post.js";
import { createWebhookIntake, type VerifiedWebhook, type WebhookIntake } from "../../src/security/webhook-intake.js";
import { createRedactingLogger } from "../../src/security/create-redacting-logger.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const SECRET = "intake-test-secret";
const sign = (body: string) => `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

describe("createWebhookIntake", () => {
  let server: http.Server;
  let url: string;
  let intake: WebhookIntake;
  let received: VerifiedWebhook[];
  let logLines: string[];

  beforeEach(async () => {
    received = [];
    logLines = [];
    const log = await createRedactingLogger({
      level: "debug",
      redactor: createSecretRedactor(),
      sink: { write: (l) => logLines.push(l) },
    });
    intake = createWebhookIntake({
      secret: SECRET,
      log,
      limit: 2 * 1024 * 1024,
      receive: async (e) => void received.push(e),
    });
    server = http.createServer((req, res) => void intake.handle(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": "d-1",
        "x-hub-signature-256": sign(body),
        ...headers,
      },
    });

  it("passes a signed event to the app and logs one line without the payload", async () => {
    const body = JSON.stringify({ action: "opened", marker: "PAYLOAD-TEXT" });
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(received).toEqual([
      { id: "d-1", name: "issues", payload: { action: "opened", marker: "PAYLOAD-TEXT" }, raw: body },
    ]);
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain('"verdict":"accepted"');
    expect(logLines[0]).toContain(`"bytes":${body.length}`);
    expect(logLines.join("")).not.toContain("PAYLOAD-TEXT");
  });

  it("refuses a 1 MB body with a wrong signature without parsing it, and logs under 1 KB", async () => {
    const body = JSON.stringify({ blob: "A".repeat(1024 * 1024) });
    const res = await post(body, { "x-hub-signature-256": sign("something else") });
    expect(res.status).toBe(401);
    expect(received).toEqual([]);
    const logged = logLines.join("");
    expect(logged.length).toBeLessThan(1024);
    expect(logged).toContain('"verdict":"bad signature"');
    expect(logged).not.toContain("AAAA");
  });

  it("refuses a body over the cap from its Content-Length with 413, buffering nothing", async () => {
    const head = {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": "d-2",
      "x-hub-signature-256": "sha256=00",
      "content-length": String(3 * 1024 * 1024),
    };
    const status = await rawPost(url, head, (socket) => socket.write("x".repeat(64 * 1024)));
    expect(status).toBe(413);
    expect(intake.stats().peakBufferedBytes).toBe(0);
    expect(logLines.join("")).toContain('"verdict":"too large"');
  });

  it("stops a streamed body (no Content-Length) as soon as it passes the cap, holding at most the cap", async () => {
    const head = {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": "d-3",
      "x-hub-signature-256": "sha256=00",
      "transfer-encoding": "chunked",
    };
    const chunk = "y".repeat(256 * 1024);
    const status = await rawPost(url, head, (socket) => {
      let sent = 0;
      const pump = () => {
        while (sent < 4 * 1024 * 1024 && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) return void socket.once("drain", pump);
        }
        if (!socket.destroyed) socket.write("0\r\n\r\n");
      };
      pump();
    });
    expect(status).toBe(413);
    expect(intake.stats().peakBufferedBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(intake.stats().bufferedBytes).toBe(0);
    expect(received).toEqual([]);
  });
});
