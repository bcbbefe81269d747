import type { IncomingMessage } from "node:http";
import { checkWebhookRequest, webhookHeaders } from "../../src/security/check-webhook-request.js";

/** A request as the intake sees it before reading the body: a method and headers (node lower-cases their names). */
const request = (method: string, headers: Record<string, string | string[]>) =>
  ({ method, headers }) as unknown as IncomingMessage;

const signed = {
  "content-type": "application/json; charset=utf-8",
  "x-github-event": "issues",
  "x-github-delivery": "d-1",
  "x-hub-signature-256": "sha256=abc",
  "content-length": "10",
};

const check = (method: string, headers: Record<string, string | string[]>, limit = 100) => {
  const req = request(method, headers);
  return checkWebhookRequest(req, webhookHeaders(req), limit);
};

describe("checkWebhookRequest (before any byte of the body is read)", () => {
  it("lets a signed JSON POST within the limit through", () => {
    expect(check("POST", signed)).toBeNull();
  });

  it("refuses, in this order: not a POST (405), a missing header (400), not JSON (415), a declared size over the limit (413)", () => {
    expect(check("GET", signed)).toMatchObject({ status: 405, verdict: "not a POST" });
    for (const name of ["x-github-event", "x-github-delivery", "x-hub-signature-256"]) {
      const { [name]: _dropped, ...rest } = signed as Record<string, string>;
      expect(check("POST", rest)).toMatchObject({ status: 400, verdict: "missing headers" });
    }
    const form = check("POST", { ...signed, "content-type": "application/x-www-form-urlencoded" });
    expect(form).toMatchObject({
      status: 415,
      message: expect.stringMatching(/application\/json in the App's settings/),
    });
    expect(check("POST", { ...signed, "content-length": "101" })).toMatchObject({ status: 413, verdict: "too large" });
  });

  it("reads a repeated header's first value, and a request without Content-Length as of unknown size", () => {
    const req = request("POST", { ...signed, "x-github-event": ["push", "issues"], "content-length": [] as never });
    const h = webhookHeaders(req);
    expect(h.event).toBe("push");
    const { "content-length": _none, ...unsized } = signed;
    expect(Number.isNaN(webhookHeaders(request("POST", unsized)).declared)).toBe(true);
    expect(check("POST", unsized)).toBeNull();
  });
});
