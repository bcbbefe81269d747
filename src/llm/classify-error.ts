import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { LlmError } from "./llm-error.js";
import { ProviderHttpError } from "./provider-http-error.js";
import { redactSecret } from "./redact-secret.js";

export interface ErrorContext {
  model: string;
  baseUrl: string;
  /** Only used to scrub it from messages. */
  apiKey?: string;
  /** The variable holding the credential, for messages (default OPENAI_API_KEY). */
  keyName?: string;
  /** The variable naming the endpoint, for messages (default OPENAI_BASE_URL). */
  endpointName?: string;
}

/** Provider error types (Anthropic's and Bedrock's) that another attempt may clear. */
const RATE_LIMIT_TYPES = /^(rate_limit_error|throttlingException|ThrottlingException|serviceQuotaExceededException)$/;
const OVERLOAD_TYPES =
  /^(overloaded_error|api_error|serviceUnavailableException|internalServerException|modelStreamErrorException|ServiceUnavailableException|InternalServerException|ModelStreamErrorException)$/;

/** Overload and gateway statuses that usually clear up; other 5xx (501, 505) will not. 529 is Anthropic's "overloaded". */
const RETRYABLE_5XX = new Set([500, 502, 503, 504, 529]);

// Wordings of "prompt too large" across OpenAI, Anthropic, Gemini, vLLM, llama.cpp, Ollama and LiteLLM.
const CONTEXT_TOO_LONG =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|input is too long|exceeds the maximum number of tokens|reduce the length of the messages|context size/i;

/**
 * Turn anything the SDK (or our own streaming code) threw into an {@link LlmError} with an actionable message.
 * `retryable` marks 408, 429, 500/502/503/504/529, connection failures and timeouts.
 */
export function classifyError(error: unknown, ctx: ErrorContext): LlmError {
  if (error instanceof LlmError) return error;
  // The SDK wraps what a token provider threw (Entra ID's, which says what to set) in its own error.
  if (error instanceof Error && error.cause instanceof LlmError) return error.cause;
  const host = hostOf(ctx.baseUrl);
  if (error instanceof APIUserAbortError) return new LlmError("aborted", "The model request was cancelled.");
  if (error instanceof APIConnectionTimeoutError) return timeoutError(host);
  if (error instanceof APIConnectionError) {
    return new LlmError(
      "network",
      `Could not reach the model endpoint at ${host}. Check ${ctx.endpointName ?? "OPENAI_BASE_URL"} and the network.`,
      { retryable: true },
    );
  }
  if (error instanceof APIError)
    return fromStatus({ status: error.status, message: error.message, code: error.code }, ctx, host);
  if (error instanceof ProviderHttpError) return fromProvider(error, ctx, host);
  const message = redactSecret(error instanceof Error ? error.message : String(error), ctx.apiKey);
  if (/ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|terminated|fetch failed|other side closed/i.test(message)) {
    return new LlmError(
      "network",
      `The connection to the model endpoint at ${host} broke (${message.slice(0, 200)}). Try again later.`,
      { retryable: true },
    );
  }
  return new LlmError("bad-request", `The model request failed: ${message.slice(0, 300)}`);
}

/** The error for a request that got no (further) answer within the per-request timeout. */
export function timeoutError(host: string): LlmError {
  return new LlmError(
    "timeout",
    `The model endpoint at ${host} did not answer in time. Try again later, or raise the request timeout.`,
    { retryable: true },
  );
}

/** An Anthropic, Bedrock or Vertex failure: by its error type first (stream events carry no status), then its status. */
function fromProvider(error: ProviderHttpError, ctx: ErrorContext, host: string): LlmError {
  const type = error.type ?? "";
  const detail = redactSecret(error.message, ctx.apiKey).slice(0, 300);
  const status = error.status !== undefined ? { status: error.status } : {};
  if (RATE_LIMIT_TYPES.test(type)) {
    return new LlmError(
      "rate-limited",
      `The model endpoint at ${host} is throttling requests (${type}${error.status ? `, HTTP ${error.status}` : ""}) — try again later, or ask for a higher quota.`,
      { ...status, retryable: true },
    );
  }
  if (OVERLOAD_TYPES.test(type) && (error.status === undefined || error.status >= 500)) {
    return new LlmError(
      "server",
      `The model endpoint at ${host} is overloaded or failing (${type}${error.status ? `, HTTP ${error.status}` : ""}) — try again later.`,
      { ...status, retryable: true },
    );
  }
  if (/^(modelTimeoutException|ModelTimeoutException)$/.test(type))
    return new LlmError("timeout", timeoutError(host).message, { ...status, retryable: true });
  return fromStatus({ status: error.status, message: detail, code: type }, ctx, host);
}

function fromStatus(
  error: { status: number | undefined; message: string; code?: string | null | undefined },
  ctx: ErrorContext,
  host: string,
): LlmError {
  const status = error.status;
  const detail = redactSecret(error.message || "", ctx.apiKey).slice(0, 300);
  const looksTooLong = error.code === "context_length_exceeded" || CONTEXT_TOO_LONG.test(detail);
  if (status === undefined) {
    // An error event inside an otherwise healthy stream: providers send these for overload and internal failures.
    if (looksTooLong) return contextTooLong();
    return new LlmError("server", `The model endpoint at ${host} failed while answering: ${detail}`, {
      retryable: true,
    });
  }
  if (status === 401 || status === 403) {
    return new LlmError(
      "auth",
      `The model endpoint at ${host} rejected the ${ctx.keyName ? "credentials" : "API key"} (HTTP ${status}) — check ${ctx.keyName ?? "OPENAI_API_KEY"}, and that the key may use model "${ctx.model}".`,
      { status },
    );
  }
  if (status === 404) {
    return new LlmError(
      "model-not-found",
      `Model "${ctx.model}" was not found at ${host} (HTTP 404) — check the model name (\`model\` in .github/aider.yml or --model), and that ${ctx.endpointName ?? "OPENAI_BASE_URL"} is the API root${ctx.endpointName ? "" : " (often ending in /v1)"}.`,
      { status },
    );
  }
  if (status === 429) {
    return new LlmError(
      "rate-limited",
      `The model endpoint at ${host} is rate-limiting requests (HTTP 429) — try again later, or check the account's quota.`,
      { status, retryable: true },
    );
  }
  if (status === 408) return new LlmError("timeout", timeoutError(host).message, { status, retryable: true });
  if (looksTooLong && status < 500) return contextTooLong(status);
  if (status >= 500) {
    return new LlmError("server", `The model endpoint at ${host} failed (HTTP ${status}) — try again later.`, {
      status,
      retryable: RETRYABLE_5XX.has(status),
    });
  }
  return new LlmError("bad-request", `The model endpoint at ${host} rejected the request (HTTP ${status}): ${detail}`, {
    status,
  });
}

function contextTooLong(status?: number): LlmError {
  return new LlmError(
    "context-too-long",
    "The request is too large for the model's context window — name fewer files, or lower map_tokens.",
    status === undefined ? {} : { status },
  );
}

/** The host (and port) of a base URL, for messages; never the path or credentials in it. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || "the configured endpoint";
  } catch {
    // Only names the endpoint in a message; an unparsable URL was already refused at start-up (config/env.ts).
    return "the configured endpoint";
  }
}
