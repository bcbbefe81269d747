import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Verdict } from "./check-webhook-request.js";

/** Bytes held by an intake's requests together, and the most ever held at once. */
export interface BufferBudget {
  buffered: number;
  peak: number;
  /** Most bytes one body may have. */
  limit: number;
  /** Most bytes all bodies together may hold. */
  inFlightLimit: number;
}

/** A body read whole (or refused part way), its HMAC computed as it arrived. `release` gives its bytes back. */
export interface WebhookBody {
  refused: Verdict | null;
  chunks: Buffer[];
  size: number;
  digest: () => string;
  release: () => void;
}

/**
 * Reads a body, counting its bytes against the budget as they arrive: past the body limit or the in-flight limit it
 * stops (and keeps nothing more). The HMAC is computed on the way, so the body is never read twice.
 */
export async function readWebhookBody(
  req: IncomingMessage,
  secret: string,
  budget: BufferBudget,
): Promise<WebhookBody> {
  const hmac = createHmac("sha256", secret);
  const body: WebhookBody = {
    refused: null,
    chunks: [],
    size: 0,
    digest: () => hmac.digest("hex"),
    release: () => {
      budget.buffered -= body.size;
      body.size = 0;
      body.chunks.length = 0;
    },
  };
  body.refused = await new Promise<Verdict | null>((resolve) => {
    const stop = (v: Verdict | null) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      if (body.size + chunk.length > budget.limit)
        return stop({ status: 413, verdict: "too large", message: `Payloads over ${budget.limit} bytes are refused.` });
      if (budget.buffered + chunk.length > budget.inFlightLimit)
        return stop({ status: 503, verdict: "busy", message: "Too many large deliveries at once; redeliver later." });
      body.size += chunk.length;
      budget.buffered += chunk.length;
      budget.peak = Math.max(budget.peak, budget.buffered);
      hmac.update(chunk);
      body.chunks.push(chunk);
    };
    const onEnd = () => stop(null);
    const onError = () => stop({ status: 400, verdict: "aborted", message: "The request was aborted." });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
  return body;
}
