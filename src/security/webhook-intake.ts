import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

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
  receive(event: VerifiedWebhook): Promise<void>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Largest body accepted (default {@link GITHUB_PAYLOAD_LIMIT}). */
  limit?: number;
  /** Bytes all requests together may hold in memory at once; more gets 503 (default 4 × limit). */
  inFlightLimit?: number;
}

export interface WebhookIntake {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Bytes held now, and the most ever held at once, by this intake (bodies being read). */
  stats(): { bufferedBytes: number; peakBufferedBytes: number };
}

type Verdict = { status: number; verdict: string; message: string };

/**
 * The webhook endpoint, bounded: a body over the limit is refused from its Content-Length (or as soon as the count
 * of streamed bytes passes it) without being kept; the HMAC is computed as bytes arrive and checked before the body
 * is parsed; only a verified event reaches the app. Each delivery writes ONE log line — event, delivery id, size and
 * verdict — and never the payload (Probot's own middleware logs the whole event on a bad signature).
 */
export function createWebhookIntake(options: WebhookIntakeOptions): WebhookIntake {
  const limit = options.limit ?? GITHUB_PAYLOAD_LIMIT;
  const inFlightLimit = options.inFlightLimit ?? 4 * limit;
  let buffered = 0;
  let peak = 0;

  const finish = (
    res: ServerResponse,
    info: { event: string; delivery: string; bytes: number },
    v: Verdict,
    req?: IncomingMessage,
  ) => {
    const line = { ...info, status: v.status, verdict: v.verdict };
    if (v.status < 400) options.log.info(line, "webhook");
    else options.log.warn(line, "webhook refused");
    if (res.headersSent) return;
    // A refused body is not read further: the connection closes once the answer is sent.
    if (req && v.status >= 400 && !req.readableEnded) {
      res.setHeader("connection", "close");
      res.on("finish", () => req.destroy());
    }
    res.writeHead(v.status, { "content-type": "application/json" }).end(JSON.stringify({ message: v.message }));
  };

  return {
    stats: () => ({ bufferedBytes: buffered, peakBufferedBytes: peak }),
    async handle(req, res) {
      const event = header(req, "x-github-event");
      const delivery = header(req, "x-github-delivery");
      const signature = header(req, "x-hub-signature-256");
      const declared = Number(req.headers["content-length"] ?? NaN);
      const info = {
        event: event.slice(0, 100),
        delivery: delivery.slice(0, 100),
        bytes: Number.isFinite(declared) ? declared : 0,
      };
      if (req.method !== "POST")
        return finish(res, info, { status: 405, verdict: "not a POST", message: "Webhooks are POSTed." }, req);
      if (!event || !delivery || !signature) {
        return finish(
          res,
          info,
          {
            status: 400,
            verdict: "missing headers",
            message: "Required headers missing: x-github-event, x-github-delivery, x-hub-signature-256.",
          },
          req,
        );
      }
      if (!/^application\/json\b/i.test(header(req, "content-type"))) {
        return finish(
          res,
          info,
          {
            status: 415,
            verdict: "not JSON",
            message: "Set the webhook's content type to application/json in the App's settings.",
          },
          req,
        );
      }
      if (declared > limit)
        return finish(
          res,
          info,
          {
            status: 413,
            verdict: "too large",
            message: `Payloads over ${limit} bytes are refused (GitHub's cap is 25 MB).`,
          },
          req,
        );

      const hmac = createHmac("sha256", options.secret);
      const chunks: Buffer[] = [];
      let size = 0;
      const release = () => {
        buffered -= size;
      };
      const outcome = await new Promise<Verdict | null>((resolve) => {
        const stop = (v: Verdict | null) => {
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
          resolve(v);
        };
        const onData = (chunk: Buffer) => {
          if (size + chunk.length > limit)
            return stop({ status: 413, verdict: "too large", message: `Payloads over ${limit} bytes are refused.` });
          if (buffered + chunk.length > inFlightLimit)
            return stop({
              status: 503,
              verdict: "busy",
              message: "Too many large deliveries at once; redeliver later.",
            });
          size += chunk.length;
          buffered += chunk.length;
          peak = Math.max(peak, buffered);
          hmac.update(chunk);
          chunks.push(chunk);
        };
        const onEnd = () => stop(null);
        const onError = () => stop({ status: 400, verdict: "aborted", message: "The request was aborted." });
        req.on("data", onData);
        req.on("end", onEnd);
        req.on("error", onError);
      });
      info.bytes = size;
      try {
        if (outcome) return finish(res, info, outcome, req);
        const expected = Buffer.from(`sha256=${hmac.digest("hex")}`);
        const given = Buffer.from(signature);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          return finish(res, info, {
            status: 401,
            verdict: "bad signature",
            message: "Signature does not match: check that WEBHOOK_SECRET matches the App's webhook secret.",
          });
        }
        let payload: unknown;
        const raw = Buffer.concat(chunks, size).toString("utf8");
        try {
          payload = JSON.parse(raw);
        } catch {
          return finish(res, info, { status: 400, verdict: "invalid JSON", message: "The payload is not valid JSON." });
        }
        chunks.length = 0;
        release();
        size = 0;
        try {
          await options.receive({ id: delivery, name: event, payload, raw });
        } catch {
          // The app's error handler has logged what went wrong (without the payload); GitHub gets a plain 500.
          return finish(
            res,
            { ...info, bytes: info.bytes },
            { status: 500, verdict: "handler failed", message: "The app failed to handle this event; see its logs." },
          );
        }
        return finish(res, info, { status: 200, verdict: "accepted", message: "ok" });
      } finally {
        release();
        size = 0;
      }
    },
  };
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}
