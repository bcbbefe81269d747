import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Verdict } from "./check-webhook-request.js";

/**
 * Bytes held by an intake's requests, and the limits on them. Bodies are charged before their signature can be
 * checked, so strangers can hold bytes too: bodies that declare at most `smallBodyLimit` bytes (every ordinary GitHub
 * delivery) are charged to a reserve of their own that large bodies can never use, and every body must arrive within
 * `timeoutMs`.
 */
export interface BufferBudget {
  /** Bytes held by all bodies now. */
  buffered: number;
  /** The most ever held at once. */
  peak: number;
  /** Most bytes one body may have. */
  limit: number;
  /** Most bytes the large bodies (over `smallBodyLimit`, or of no declared size) may hold together. */
  inFlightLimit: number;
  /** Bytes held by large bodies now. */
  largeBuffered: number;
  /** A body whose Content-Length is at most this is small. */
  smallBodyLimit: number;
  /** Most bytes the small bodies may hold together (their reserve). */
  smallInFlightLimit: number;
  /** Bytes held by small bodies now. */
  smallBuffered: number;
  /** How long a body may take to arrive, from the moment its headers were read. */
  timeoutMs: number;
}

/** The budget's defaults for a body limit: 4 large bodies, a 32 MB reserve for bodies of at most 1 MB, 10 s per body. */
export function createBufferBudget(
  limit: number,
  options: { [K in "inFlightLimit" | "smallBodyLimit" | "smallInFlightLimit" | "timeoutMs"]?: number | undefined } = {},
): BufferBudget {
  return {
    buffered: 0,
    peak: 0,
    limit,
    inFlightLimit: options.inFlightLimit ?? 4 * limit,
    largeBuffered: 0,
    smallBodyLimit: Math.min(options.smallBodyLimit ?? 1024 * 1024, limit),
    smallInFlightLimit: options.smallInFlightLimit ?? 32 * 1024 * 1024,
    smallBuffered: 0,
    // GitHub gives up on a delivery not answered within 10 s: a body still arriving then is not worth waiting for.
    timeoutMs: options.timeoutMs ?? 10_000,
  };
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
 * Reads a body, counting its bytes against the budget as they arrive: past the body limit, its pool's in-flight limit
 * or the deadline it stops (and keeps nothing more). The HMAC is computed on the way, so the body is never read twice.
 * Which pool a body is charged to is decided by its declared Content-Length (Node's parser never delivers more bytes
 * than that); a body with none (chunked) is large.
 */
export async function readWebhookBody(
  req: IncomingMessage,
  secret: string,
  budget: BufferBudget,
): Promise<WebhookBody> {
  const hmac = createHmac("sha256", secret);
  const declared = Number(req.headers?.["content-length"] ?? NaN);
  const small = Number.isFinite(declared) && declared <= budget.smallBodyLimit;
  const charge = (bytes: number) => {
    budget.buffered += bytes;
    if (small) budget.smallBuffered += bytes;
    else budget.largeBuffered += bytes;
  };
  const body: WebhookBody = {
    refused: null,
    chunks: [],
    size: 0,
    digest: () => hmac.digest("hex"),
    release: () => {
      charge(-body.size);
      body.size = 0;
      body.chunks.length = 0;
    },
  };
  body.refused = await new Promise<Verdict | null>((resolve) => {
    const stop = (v: Verdict | null) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(v);
    };
    const timer = setTimeout(
      () =>
        stop({
          status: 408,
          verdict: "too slow",
          message: `The body did not arrive within ${budget.timeoutMs} ms; redeliver it.`,
        }),
      budget.timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      const limit = small ? Math.min(declared, budget.limit) : budget.limit;
      if (body.size + chunk.length > limit)
        return stop({ status: 413, verdict: "too large", message: `Payloads over ${budget.limit} bytes are refused.` });
      const [held, most] = small
        ? [budget.smallBuffered, budget.smallInFlightLimit]
        : [budget.largeBuffered, budget.inFlightLimit];
      if (held + chunk.length > most)
        return stop({
          status: 503,
          verdict: "busy",
          message: `Too many ${small ? "" : "large "}deliveries at once; redeliver later.`,
        });
      body.size += chunk.length;
      charge(chunk.length);
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
