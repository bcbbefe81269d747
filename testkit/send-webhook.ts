import { createHmac, randomUUID } from "node:crypto";

/** `sha256=<hex>` HMAC of the body, as GitHub signs webhook deliveries (X-Hub-Signature-256). */
function signWebhook(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/**
 * POST one webhook delivery to the app like GitHub does: JSON body, event name, delivery id, signature.
 * Returns the HTTP status and the delivery id used.
 */
export async function sendWebhook(options: {
  url: string;
  secret: string;
  event: string;
  payload: unknown;
  deliveryId?: string;
  signature?: string;
}): Promise<{ status: number; deliveryId: string; body: string }> {
  const body = JSON.stringify(options.payload);
  const deliveryId = options.deliveryId ?? randomUUID();
  const res = await fetch(options.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/demo",
      "x-github-event": options.event,
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": options.signature ?? signWebhook(options.secret, body),
    },
    body,
  });
  return { status: res.status, deliveryId, body: await res.text() };
}
