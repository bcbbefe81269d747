import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { hostOf, timeoutError } from "./classify-error.js";
import { addUsage } from "./create-llm-client.js";
import { estimateUsage } from "./estimate-usage.js";
import { LlmError } from "./llm-error.js";
import { ProviderHttpError } from "./provider-http-error.js";
import type { CompletionPart } from "./request-completion.js";
import { withStreamTimeout } from "./stream-timeout.js";
import { stripReasoning } from "./strip-reasoning.js";
import { toAnthropicMessages, type AnthropicPrompt } from "./to-anthropic-messages.js";
import { toOpenAiMessage } from "./to-openai-message.js";
import type { CompletionRequest, CompletionResult, LlmClient, TokenUsage } from "./types.js";
import { withRetries, type RetryPolicy } from "./with-retries.js";

/** What we use of the SDK clients (`Anthropic`, `AnthropicBedrock`, `AnthropicVertex` share it). */
export interface MessagesApi {
  messages: {
    create(
      body: MessageCreateParamsStreaming,
      options: { signal: AbortSignal; maxRetries: number },
    ): PromiseLike<AsyncIterable<RawMessageStreamEvent>>;
  };
}

export interface AnthropicClientOptions {
  /** The SDK client: `Anthropic`, `AnthropicBedrock` or `AnthropicVertex` (they share the Messages API). */
  sdk: MessagesApi | (() => Promise<MessagesApi>);
  /** For messages: where requests go, and the variables that configure it. */
  baseUrl: string;
  keyName: string;
  endpointName: string;
  /** Only scrubbed from messages. */
  apiKey?: string;
  policy: RetryPolicy;
  timeoutMs: number;
  /** The answer's output cap when the call sets none (Anthropic requires one): the model's limit. */
  maxOutput: (model: string) => number;
  /** Continue answers cut at the output limit with an assistant prefill, at most this many times (0: never). */
  maxContinuations: number;
  redact: (text: string) => string;
  /** USD for a call's usage, or null when the model has no known price. */
  cost: (model: string, usage: TokenUsage) => number | null;
}

/**
 * An {@link LlmClient} over Anthropic's Messages API, for Claude direct, on Bedrock and on Vertex: streamed answers
 * (deltas to `onDelta`), cache breakpoints from `cacheBreakpoint` (unless `cache: false`), the prompt's cached parts
 * read from the usage (`input_tokens` excludes them; our `prompt` counts every input token), stop reasons, images,
 * our retries honouring `retry-after`, and errors as the same {@link LlmError} kinds as the OpenAI path.
 * `req.model` is the provider's own model id (without our `anthropic/` … prefix).
 */
export function createAnthropicClient(o: AnthropicClientOptions): LlmClient {
  const host = hostOf(o.baseUrl);
  let sdk: Promise<MessagesApi> | null = null;
  const client = () => (sdk ??= typeof o.sdk === "function" ? o.sdk() : Promise.resolve(o.sdk));
  return {
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      const ctx = { model: req.model, baseUrl: o.baseUrl, keyName: o.keyName, endpointName: o.endpointName };
      const prompt = toAnthropicMessages(req.messages, { cache: req.cache !== false, redact: o.redact });
      const policy = req.maxRetries === undefined ? o.policy : { ...o.policy, maxRetries: req.maxRetries };
      let text = "";
      let finishReason: CompletionResult["finishReason"] = "other";
      const usage: TokenUsage = { prompt: 0, completion: 0 };
      let usageEstimated = false;
      for (let round = 0; round <= o.maxContinuations; round++) {
        // A continuation sends the answer so far as the assistant's own words, and Claude carries on from there.
        const sent: AnthropicPrompt = text
          ? { ...prompt, messages: [...prompt.messages, { role: "assistant", content: [{ type: "text", text }] }] }
          : prompt;
        const part = await withRetries(
          async () => {
            const messages = await client().catch((error: unknown) => {
              throw setupError(error, o);
            });
            return withStreamTimeout({ timeoutMs: o.timeoutMs, host, signal: req.signal }, (signal, arm) =>
              streamed(messages, req, sent, signal, arm, o).catch((error: unknown) => {
                throw providerError(error, host, o);
              }),
            );
          },
          policy,
          { ...ctx, ...(o.apiKey ? { apiKey: o.apiKey } : {}) },
          req.signal,
        );
        text += part.text;
        finishReason = part.finishReason;
        const used =
          part.usage ??
          (await estimateUsage(
            req.messages.map((m) => toOpenAiMessage(m, o.redact)),
            part.text,
          ));
        usageEstimated ||= part.usage === null;
        addUsage(usage, used);
        if (finishReason !== "length" || part.text === "") break;
      }
      return {
        text: stripReasoning(text),
        finishReason,
        usage,
        usageEstimated,
        costUsd: o.cost(req.model, usage),
        model: req.model,
      };
    },
  };
}

async function streamed(
  sdk: MessagesApi,
  req: CompletionRequest,
  prompt: AnthropicPrompt,
  signal: AbortSignal,
  onChunk: () => void,
  o: AnthropicClientOptions,
): Promise<CompletionPart> {
  const body = {
    model: req.model,
    max_tokens: req.maxTokens ?? o.maxOutput(req.model),
    ...(prompt.system ? { system: prompt.system } : {}),
    messages: prompt.messages,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    stream: true,
  } as MessageCreateParamsStreaming;
  const stream = await sdk.messages.create(body, { signal, maxRetries: 0 });
  let text = "";
  let stop: string | null = null;
  let input: { input?: number | null; read?: number | null; write?: number | null } = {};
  let output = 0;
  let sawUsage = false;
  for await (const event of stream) {
    onChunk();
    if (event.type === "message_start") {
      const u = event.message.usage;
      input = { input: u.input_tokens, read: u.cache_read_input_tokens, write: u.cache_creation_input_tokens };
      output = u.output_tokens ?? 0;
      sawUsage = true;
    } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      text += event.delta.text;
      req.onDelta?.(event.delta.text);
    } else if (event.type === "message_delta") {
      stop = event.delta.stop_reason ?? stop;
      // Running totals: the last one wins; input counts appear here too on newer API versions.
      output = event.usage.output_tokens;
      if (event.usage.input_tokens != null) input.input = event.usage.input_tokens;
      if (event.usage.cache_read_input_tokens != null) input.read = event.usage.cache_read_input_tokens;
      if (event.usage.cache_creation_input_tokens != null) input.write = event.usage.cache_creation_input_tokens;
      sawUsage = true;
    }
  }
  if (stop === null && text === "") {
    throw new ProviderHttpError("the stream ended before any answer", { type: "api_error" });
  }
  return { text, finishReason: mapStop(stop), usage: sawUsage ? usageOf(input, output) : null };
}

/** Anthropic's `input_tokens` excludes the cached parts; our `prompt` counts every input token. */
function usageOf(
  u: { input?: number | null; read?: number | null; write?: number | null },
  output: number,
): TokenUsage {
  const read = u.read ?? 0;
  const write = u.write ?? 0;
  return {
    prompt: (u.input ?? 0) + read + write,
    completion: output,
    ...(read ? { cacheRead: read } : {}),
    ...(write ? { cacheWrite: write } : {}),
  };
}

function mapStop(reason: string | null): CompletionResult["finishReason"] {
  if (reason === "end_turn" || reason === "stop_sequence") return "stop";
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  return "other";
}

/** The SDK's errors in the shape classify-error and retry-delay read; credential failures named as such. */
function providerError(error: unknown, host: string, o: AnthropicClientOptions): unknown {
  if (error instanceof LlmError || error instanceof ProviderHttpError) return error;
  if (error instanceof APIUserAbortError) return new LlmError("aborted", "The model request was cancelled.");
  if (error instanceof APIConnectionTimeoutError) return timeoutError(host);
  const credentials = credentialProblem(error);
  if (credentials) return new LlmError("auth", `${credentials} ${o.keyName}.`);
  if (error instanceof APIConnectionError) {
    return new LlmError(
      "network",
      `Could not reach the model endpoint at ${host}. Check ${o.endpointName} and the network.`,
      {
        retryable: true,
      },
    );
  }
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: unknown; message?: unknown }; message?: unknown } | undefined;
    const type = error.type ?? (typeof body?.error?.type === "string" ? body.error.type : undefined);
    const detail =
      error.apiMessage ??
      (typeof body?.error?.message === "string"
        ? body.error.message
        : typeof body?.message === "string"
          ? body.message
          : error.message);
    return new ProviderHttpError(detail, {
      status: error.status,
      headers: error.headers,
      type: type ?? bedrockErrorType(error.headers),
    });
  }
  return error;
}

/** Bedrock names its error in `x-amzn-ErrorType` (`ThrottlingException:http://…`). */
function bedrockErrorType(headers: Headers | undefined): string | undefined {
  const raw = headers?.get("x-amzn-errortype");
  return raw ? raw.split(":")[0] : undefined;
}

/** A cloud SDK that found no credentials fails before any request: say which and how to give them. */
function credentialProblem(error: unknown): string | null {
  const text = `${error instanceof Error ? error.message : String(error)} ${
    error instanceof Error && error.cause instanceof Error ? error.cause.message : ""
  }`;
  if (/Failed to resolve AWS credentials|Could not load credentials|CredentialsProviderError/i.test(text))
    return "No AWS credentials were found for Bedrock (environment keys, profile, web identity or instance role) — set";
  if (
    /Could not load the default credentials|Unable to detect a Project Id|invalid_grant|Could not refresh access token/i.test(
      text,
    )
  )
    return "Google's Application Default Credentials for Vertex could not be used (GOOGLE_APPLICATION_CREDENTIALS, workload identity or the metadata server) — check";
  return null;
}

/** A provider client that could not be made (a missing region, an SDK that failed to load). */
function setupError(error: unknown, o: AnthropicClientOptions): LlmError {
  if (error instanceof LlmError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError("auth", `The model client for ${hostOf(o.baseUrl)} could not start: ${message.slice(0, 300)}`);
}
