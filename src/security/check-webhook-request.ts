import type { IncomingMessage } from "node:http";

/** An answer to a delivery: its HTTP status, a short verdict for the log line, and a message for whoever sent it. */
export interface Verdict {
  status: number;
  verdict: string;
  message: string;
}

/** The delivery's headers (each cut to 100 characters for the log line) and its declared size. */
export interface WebhookHeaders {
  event: string;
  delivery: string;
  signature: string;
  declared: number;
}

export function webhookHeaders(req: IncomingMessage): WebhookHeaders {
  return {
    event: header(req, "x-github-event"),
    delivery: header(req, "x-github-delivery"),
    signature: header(req, "x-hub-signature-256"),
    declared: Number(req.headers["content-length"] ?? NaN),
  };
}

/** Why a request is refused before its body is read (not a POST, headers missing, not JSON, too large), or null. */
export function checkWebhookRequest(req: IncomingMessage, h: WebhookHeaders, limit: number): Verdict | null {
  if (req.method !== "POST") return { status: 405, verdict: "not a POST", message: "Webhooks are POSTed." };
  if (!h.event || !h.delivery || !h.signature)
    return {
      status: 400,
      verdict: "missing headers",
      message: "Required headers missing: x-github-event, x-github-delivery, x-hub-signature-256.",
    };
  if (!/^application\/json\b/i.test(header(req, "content-type")))
    return {
      status: 415,
      verdict: "not JSON",
      message: "Set the webhook's content type to application/json in the App's settings.",
    };
  if (h.declared > limit)
    return {
      status: 413,
      verdict: "too large",
      message: `Payloads over ${limit} bytes are refused (GitHub's cap is 25 MB).`,
    };
  return null;
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}
