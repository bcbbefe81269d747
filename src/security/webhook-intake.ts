import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkWebhookRequest, webhookHeaders, type Verdict, type WebhookHeaders } from "./check-webhook-request.js";
import { createBufferBudget, readWebhookBody, type BufferBudget, type WebhookBody } from "./read-webhook-body.js";

/** GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub. */
export const GITHUB_PAYLOAD_LIMIT = 25 * 1024 * 1024;

export interface VerifiedWebhook {
  id: string;
  name: string;
  payload: unknown;
  /** The body as received (what the signature covers), for storing without re-encoding the parsed payload. */
  raw?: string;
}

export interface WebhookIntakeOptions {
  secret: string;
  /** Takes a verified event in; `refused` (a payload without what its kind must carry) is answered 400 with it. */
  receive(event: VerifiedWebhook): Promise<void | { refused: string }>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Largest body accepted (default {@link GITHUB_PAYLOAD_LIMIT}). */
  limit?: number;
  /** Bytes all large bodies together may hold in memory at once; more gets 503 (default 4 × limit). */
  inFlightLimit?: number;
  /** Bodies declaring at most this many bytes are small (default 1 MB): they have a reserve large ones cannot use. */
  smallBodyLimit?: number;
  /** Bytes all small bodies together may hold at once (default 32 MB). */
  smallInFlightLimit?: number;
  /** How long a body may take to arrive; a slower one gets 408 and its connection is closed (default 10 s). */
  bodyTimeoutMs?: number;
}

export interface WebhookIntake {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Bytes held now, and the most ever held at once, by this intake (bodies being read). */
  stats(): { bufferedBytes: number; peakBufferedBytes: number };
}

/**
 * The webhook endpoint, bounded: a body over the limit is refused from its Content-Length (or as soon as the count
 * of streamed bytes passes it) without being kept; the HMAC is computed as bytes arrive and checked before the body
 * is parsed; only a verified event reaches the app. Each delivery writes ONE log line — event, delivery id, size and
 * verdict — and never the payload (Probot's own middleware logs the whole event on a bad signature).
 */
export function createWebhookIntake(options: WebhookIntakeOptions): WebhookIntake {
  const limit = options.limit ?? GITHUB_PAYLOAD_LIMIT;
  const budget: BufferBudget = createBufferBudget(limit, {
    inFlightLimit: options.inFlightLimit,
    smallBodyLimit: options.smallBodyLimit,
    smallInFlightLimit: options.smallInFlightLimit,
    timeoutMs: options.bodyTimeoutMs,
  });
  return {
    stats: () => ({ bufferedBytes: budget.buffered, peakBufferedBytes: budget.peak }),
    handle: (req, res) => handleDelivery(options, budget, req, res),
  };
}

/** What the delivery's log line says of it. */
interface LogInfo {
  event: string;
  delivery: string;
  bytes: number;
}

/** Checks, reads, verifies and hands one delivery to the app; answers it and logs one line. */
async function handleDelivery(
  options: WebhookIntakeOptions,
  budget: BufferBudget,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const h = webhookHeaders(req);
  const info: LogInfo = {
    event: h.event.slice(0, 100),
    delivery: h.delivery.slice(0, 100),
    bytes: Number.isFinite(h.declared) ? h.declared : 0,
  };
  const refused = checkWebhookRequest(req, h, budget.limit);
  if (refused) return finish(options, res, info, refused, req);
  const body = await readWebhookBody(req, options.secret, budget);
  info.bytes = body.size;
  try {
    if (body.refused) return finish(options, res, info, body.refused, req);
    return finish(options, res, info, await verifyAndReceive(options, h, body));
  } finally {
    body.release();
  }
}

/** The verdict on a body read whole: its signature checked, then its JSON parsed and handed to the app. */
async function verifyAndReceive(options: WebhookIntakeOptions, h: WebhookHeaders, body: WebhookBody): Promise<Verdict> {
  const expected = Buffer.from(`sha256=${body.digest()}`);
  const given = Buffer.from(h.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      status: 401,
      verdict: "bad signature",
      message: "Signature does not match: check that WEBHOOK_SECRET matches the App's webhook secret.",
    };
  }
  let payload: unknown;
  const raw = Buffer.concat(body.chunks, body.size).toString("utf8");
  try {
    payload = JSON.parse(raw);
  } catch {
    return { status: 400, verdict: "invalid JSON", message: "The payload is not valid JSON." };
  }
  // The bytes are given back before the app runs: a slow handler does not hold the in-flight budget.
  body.release();
  let received: void | { refused: string };
  try {
    received = await options.receive({ id: h.delivery, name: h.event, payload, raw });
  } catch {
    // The app's error handler has logged what went wrong (without the payload); GitHub gets a plain 500.
    return { status: 500, verdict: "handler failed", message: "The app failed to handle this event; see its logs." };
  }
  // Signed but not of its event's shape: the sender learns which field, and nothing was queued.
  if (received) return { status: 400, verdict: "malformed payload", message: received.refused };
  return { status: 200, verdict: "accepted", message: "ok" };
}

/** Logs the delivery's one line and answers it. A refused body is not read further: the connection closes after. */
function finish(
  options: WebhookIntakeOptions,
  res: ServerResponse,
  info: LogInfo,
  v: Verdict,
  req?: IncomingMessage,
): void {
  const line = { ...info, status: v.status, verdict: v.verdict };
  if (v.status < 400) options.log.info(line, "webhook");
  else options.log.warn(line, "webhook refused");
  if (res.headersSent) return;
  if (req && v.status >= 400 && !req.readableEnded) {
    res.setHeader("connection", "close");
    res.on("finish", () => req.destroy());
  }
  res.writeHead(v.status, { "content-type": "application/json" }).end(JSON.stringify({ message: v.message }));
}
