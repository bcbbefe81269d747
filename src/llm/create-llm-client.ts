import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { hostOf } from "./classify-error.js";
import { estimateUsage } from "./estimate-usage.js";
import { toOpenAiMessage } from "./to-openai-message.js";
import { costUsd, mergePrices, type PriceTable } from "./price-table.js";
import { requestCompletion } from "./request-completion.js";
import { stripReasoning } from "./strip-reasoning.js";
import type { CompletionRequest, CompletionResult, LlmClient, TokenUsage } from "./types.js";
import { defaultSleep, withRetries, type LlmLogger, type Sleep } from "./with-retries.js";

export interface LlmClientOptions {
  /** OpenAI-compatible API root, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  /** The SDK client to send with (default: an `OpenAI` one for `baseUrl`); Azure passes its `AzureOpenAI`. */
  client?: OpenAI;
  /** Names the key's variable in messages (default OPENAI_API_KEY) and the endpoint's (default OPENAI_BASE_URL). */
  keyName?: string;
  endpointName?: string;
  /** No answer, or a stream silent for this long, fails the attempt (default 10 minutes). */
  timeoutMs?: number;
  /** Our retries for 429, 5xx overload, connection failures and timeouts (default 4). */
  maxRetries?: number;
  /** Extra or overriding prices (USD per million tokens), on top of the defaults. */
  priceTable?: PriceTable;
  /** Continue answers cut off at the output limit by re-sending them as an assistant prefill (default false). */
  allowPrefill?: boolean;
  /** Bound on those continuations per call (default 3). */
  maxContinuations?: number;
  /** Ask for a streamed answer (default true); false for endpoints that cannot stream. */
  stream?: boolean;
  logger?: LlmLogger;
  /** Injected for tests so retries do not wait. */
  sleep?: Sleep;
  /** First backoff delay (default 500 ms), doubled per retry up to `maxDelayMs` (default 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest `retry-after` waited for (default 30 s); a longer ask fails the call at once. */
  maxRetryAfterMs?: number;
  random?: () => number;
  /**
   * Applied to every message before it is sent: the driver's redactor (built by its composition root, see
   * compose/compose-clients), since file content, check output and GitHub text can all carry a secret, and none may
   * reach the model. Required: a client with no redactor of its own would send whatever it is given.
   */
  redact: (text: string) => string;
}

/** A request this client understands: the shared contract plus per-call options. */
export interface LlmRequest extends CompletionRequest {
  /** Overrides the client's `allowPrefill` for this call (only some models accept an assistant prefill). */
  allowPrefill?: boolean;
}

export interface OpenAiLlmClient extends LlmClient {
  complete(req: LlmRequest): Promise<CompletionResult>;
}

/**
 * An {@link LlmClient} over the openai SDK for any OpenAI-compatible endpoint: streamed answers (deltas to
 * `onDelta`), our own retries with exponential backoff and jitter honouring `retry-after`, typed actionable
 * {@link LlmError}s, continuation of answers cut off at the output limit, reasoning sections stripped, usage
 * (estimated when the endpoint sends none) and cost.
 *
 * When an attempt fails mid-stream and is retried, `onDelta` receives the new attempt's text from its start.
 *
 * @example createLlmClient({ baseUrl: "https://api.openai.com/v1", apiKey }).complete({ model: "gpt-4o", messages })
 */
export function createLlmClient(options: LlmClientOptions): OpenAiLlmClient {
  const timeoutMs = options.timeoutMs ?? 600_000;
  // The SDK's retries are off: ours classify errors, honour retry-after with a cap, and can be put to sleep in tests.
  // Its own timeout is only a backstop for ours, which also covers stalled streams.
  const client =
    options.client ??
    new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey,
      maxRetries: 0,
      timeout: timeoutMs + 1000,
    });
  const host = hostOf(options.baseUrl);
  const redact = options.redact;
  const prices = mergePrices(options.priceTable);
  const policy = {
    maxRetries: options.maxRetries ?? 4,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
    ...(options.logger ? { logger: options.logger } : {}),
  };

  return {
    async complete(req) {
      const ctx = {
        model: req.model,
        baseUrl: options.baseUrl,
        apiKey: options.apiKey,
        ...(options.keyName ? { keyName: options.keyName } : {}),
        ...(options.endpointName ? { endpointName: options.endpointName } : {}),
      };
      const base: ChatCompletionMessageParam[] = req.messages.map((m) => toOpenAiMessage(m, redact));
      const allowPrefill = req.allowPrefill ?? options.allowPrefill ?? false;
      const maxContinuations = allowPrefill ? (options.maxContinuations ?? 3) : 0;
      let text = "";
      let finishReason: CompletionResult["finishReason"] = "other";
      const usage: TokenUsage = { prompt: 0, completion: 0 };
      let usageEstimated = false;
      for (let round = 0; round <= maxContinuations; round++) {
        // A continuation re-sends the answer so far as the assistant's own words, and the model carries on from there.
        const messages: ChatCompletionMessageParam[] = text ? [...base, { role: "assistant", content: text }] : base;
        const part = await withRetries(
          () =>
            requestCompletion({
              client,
              model: req.model,
              messages,
              temperature: req.temperature,
              maxTokens: req.maxTokens,
              cacheKey: req.cache === false ? undefined : req.cacheKey,
              onDelta: req.onDelta,
              signal: req.signal,
              stream: options.stream ?? true,
              timeoutMs,
              host,
            }),
          req.maxRetries === undefined ? policy : { ...policy, maxRetries: req.maxRetries },
          ctx,
          req.signal,
        );
        text += part.text;
        finishReason = part.finishReason;
        const used = part.usage ?? (await estimateUsage(messages, part.text));
        usageEstimated ||= part.usage === null;
        addUsage(usage, used);
        // An empty continuation would repeat forever; the caller then sees "length" and reports a truncated answer.
        if (finishReason !== "length" || part.text === "") break;
      }
      return {
        text: stripReasoning(text),
        finishReason,
        usage,
        usageEstimated,
        costUsd: costUsd(req.model, usage, prices),
        model: req.model,
      };
    },
  };
}

/** Add one request's usage (cached parts included) to a call's total. */
export function addUsage(total: TokenUsage, part: TokenUsage): void {
  total.prompt += part.prompt;
  total.completion += part.completion;
  if (part.cacheRead) total.cacheRead = (total.cacheRead ?? 0) + part.cacheRead;
  if (part.cacheWrite) total.cacheWrite = (total.cacheWrite ?? 0) + part.cacheWrite;
}
