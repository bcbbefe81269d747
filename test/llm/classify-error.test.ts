import { APIConnectionError, APIError } from "openai";
import { classifyError } from "../../src/llm/classify-error.js";

const ctx = { model: "gpt-4o", baseUrl: "https://llm.example.com/v1", apiKey: "sk-live-0123456789abcdef" };
const status = (code: number, headers: Record<string, string> = {}, message = "failed") =>
  new APIError(code, undefined, message, new Headers(headers));

describe("classifyError", () => {
  it("maps statuses to kinds with what to do, never echoing the API key", () => {
    expect(classifyError(status(401, {}, `Incorrect API key provided: ${ctx.apiKey}`), ctx)).toMatchObject({
      kind: "auth",
      retryable: false,
    });
    expect(classifyError(status(404), ctx).message).toMatch(/Model "gpt-4o" was not found at llm\.example\.com/);
    expect(classifyError(status(429), ctx)).toMatchObject({ kind: "rate-limited", retryable: true });
    expect(classifyError(status(408), ctx)).toMatchObject({ kind: "timeout", retryable: true });
    expect(classifyError(status(529), ctx)).toMatchObject({ kind: "server", retryable: true });
    expect(classifyError(status(505), ctx)).toMatchObject({ kind: "server", retryable: false });
    expect(classifyError(status(400, {}, "prompt is too long: 9 tokens > 8 maximum"), ctx)).toMatchObject({
      kind: "context-too-long",
    });
    const bad = classifyError(status(422, {}, `bad key ${ctx.apiKey}`), ctx);
    expect(bad.kind).toBe("bad-request");
    expect(bad.message).not.toContain(ctx.apiKey);
  });

  it("network failures are retryable; unknown errors are bad requests with the key scrubbed", () => {
    expect(classifyError(new APIConnectionError({ message: "boom" }), ctx)).toMatchObject({
      kind: "network",
      retryable: true,
    });
    expect(classifyError(new Error("read ECONNRESET"), ctx)).toMatchObject({ kind: "network", retryable: true });
    const other = classifyError(new Error(`weird ${ctx.apiKey}`), ctx);
    expect(other).toMatchObject({ kind: "bad-request", retryable: false });
    expect(other.message).not.toContain(ctx.apiKey);
  });

  it("names only the host of the base URL, never its credentials or path", () => {
    const withCreds = { ...ctx, baseUrl: "https://user:pass@llm.example.com:8443/v1/secret-path" };
    const message = classifyError(status(503), withCreds).message;
    expect(message).toContain("llm.example.com:8443");
    expect(message).not.toMatch(/user|pass|secret-path/);
  });
});
