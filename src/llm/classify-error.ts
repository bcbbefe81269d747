import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { LlmError } from "./llm-error.js";

/** Turn anything the SDK threw into an {@link LlmError}; `retryable` marks 429, 5xx, resets and timeouts. */
export function classifyError(error: unknown, ctx: { model: string; baseUrl: string }): LlmError {
  if (error instanceof LlmError) return error;
  const host = safeHost(ctx.baseUrl);
  if (error instanceof APIUserAbortError) return new LlmError("aborted", "The model request was cancelled.");
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError("timeout", `The model endpoint at ${host} did not answer in time. Try again later, or raise the request timeout.`, undefined, true);
  }
  if (error instanceof APIConnectionError) {
    return new LlmError("network", `Could not reach the model endpoint at ${host}. Check OPENAI_BASE_URL and the network.`, undefined, true);
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = (error.message || "").replace(/sk-[A-Za-z0-9_-]{6,}/g, "sk-***");
    if (status === 401 || status === 403) {
      return new LlmError("auth", `The model endpoint at ${host} rejected the API key (HTTP ${status}). Check OPENAI_API_KEY (and that the key may use model "${ctx.model}").`, status);
    }
    if (status === 404) {
      return new LlmError("model-not-found", `Model "${ctx.model}" was not found at ${host} (HTTP 404). Check the model name in .github/aider.yml or --model.`, status);
    }
    if (status === 429) return new LlmError("rate-limited", `The model endpoint at ${host} is rate-limiting requests (HTTP 429). Try again later.`, status, true);
    if (status >= 500) return new LlmError("server", `The model endpoint at ${host} failed (HTTP ${status}). Try again later.`, status, true);
    if (status === 400 || status === 413) {
      if (/context.length|maximum context|context window|too many tokens|prompt is too long/i.test(detail) || error.code === "context_length_exceeded") {
        return new LlmError("context-too-long", `The request is too large for the model's context window. Name fewer files, or lower map_tokens.`, status);
      }
      return new LlmError("bad-request", `The model endpoint rejected the request (HTTP ${status}): ${detail.slice(0, 300)}`, status);
    }
    return new LlmError("bad-request", `The model endpoint answered HTTP ${status}: ${detail.slice(0, 300)}`, status);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/ECONNRESET|ECONNREFUSED|socket hang up|terminated|fetch failed/i.test(message)) {
    return new LlmError("network", `The connection to the model endpoint at ${host} failed (${message}). Try again later.`, undefined, true);
  }
  return new LlmError("bad-request", `The model request failed: ${message}`);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the configured endpoint";
  }
}

/** Milliseconds a 429/503 asks us to wait (`retry-after-ms` or `retry-after` seconds/date), capped. */
export function retryAfterMs(error: unknown, capMs = 60_000): number | null {
  if (!(error instanceof APIError) || !error.headers) return null;
  const h = error.headers;
  const ms = Number(h.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, capMs);
  const raw = h.get("retry-after");
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.min(Math.max(0, secs * 1000), capMs);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - Date.now()), capMs);
}
