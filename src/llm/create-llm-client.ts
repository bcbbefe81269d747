import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { classifyError, retryAfterMs } from "./classify-error.js";
import { countTokens, loadTokenizer } from "./count-tokens.js";
import { LlmError } from "./llm-error.js";
import { costUsd, DEFAULT_PRICES, type ModelPrice } from "./price-table.js";
import { stripReasoning } from "./strip-reasoning.js";
import type { CompletionRequest, CompletionResult, LlmClient, TokenUsage } from "./types.js";

export interface LlmClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Per request (default 10 minutes). */
  timeoutMs?: number;
  /** Our retries for 429/5xx/network/timeouts (default 4). */
  maxRetries?: number;
  /** Extra or overriding prices (USD per million tokens). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** When the answer hits the output limit, re-send it as an assistant prefix and continue (only for endpoints that support it; default false). */
  allowPrefill?: boolean;
  maxContinuations?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  baseDelayMs?: number;
  random?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An {@link LlmClient} over the openai SDK against any OpenAI-compatible endpoint: streamed answers, our own
 * retries with exponential backoff and jitter (respecting `retry-after`), typed errors, continuation of answers
 * cut off at the output limit, usage (estimated when the endpoint sends none) and cost.
 */
export function createLlmClient(options: LlmClientOptions): LlmClient {
  const client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 600_000 });
  const sleep = options.sleep ?? defaultSleep;
  const maxRetries = options.maxRetries ?? 4;
  const baseDelay = options.baseDelayMs ?? 500;
  const random = options.random ?? Math.random;
  const prices = { ...DEFAULT_PRICES, ...options.prices };

  async function once(req: CompletionRequest, messages: ChatCompletionMessageParam[]) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await streamOnce(client, req, messages);
      } catch (error) {
        const err = classifyError(error, { model: req.model, baseUrl: options.baseUrl });
        if (!err.retryable || attempt >= maxRetries || req.signal?.aborted) throw err;
        const backoff = baseDelay * 2 ** attempt * (0.5 + random());
        await sleep(retryAfterMs(error) ?? backoff);
      }
    }
  }

  return {
    async complete(req) {
      const messages: ChatCompletionMessageParam[] = req.messages.map((m) => ({ role: m.role, content: m.content }));
      let text = "";
      const usage: TokenUsage = { prompt: 0, completion: 0 };
      let estimated = false;
      let finish: CompletionResult["finishReason"] = "other";
      const allowPrefill = options.allowPrefill ?? false;
      for (let k = 0; k <= (options.maxContinuations ?? 2); k++) {
        const part = await once(req, text ? [...messages, { role: "assistant", content: text }] : messages);
        text += part.text;
        finish = part.finishReason;
        if (part.usage) {
          usage.prompt += part.usage.prompt;
          usage.completion += part.usage.completion;
        } else {
          await loadTokenizer();
          estimated = true;
          usage.prompt += messages.reduce((n, m) => n + countTokens(String(m.content)), 0);
          usage.completion += countTokens(part.text);
        }
        if (finish !== "length" || !allowPrefill) break;
      }
      return { text: stripReasoning(text), finishReason: finish, usage, usageEstimated: estimated, costUsd: costUsd(req.model, usage, prices) };
    },
  };
}

async function streamOnce(client: OpenAI, req: CompletionRequest, messages: ChatCompletionMessageParam[]) {
  const stream = await client.chat.completions.create(
    {
      model: req.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
    },
    { signal: req.signal },
  );
  let text = "";
  let finishReason: CompletionResult["finishReason"] = "other";
  let usage: TokenUsage | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    const delta = choice?.delta?.content ?? "";
    if (delta) {
      text += delta;
      req.onDelta?.(delta);
    }
    if (choice?.finish_reason) finishReason = choice.finish_reason === "stop" ? "stop" : choice.finish_reason === "length" ? "length" : "other";
    if (chunk.usage) usage = { prompt: chunk.usage.prompt_tokens, completion: chunk.usage.completion_tokens };
  }
  if (finishReason === "other" && text === "") throw new LlmError("server", "The model endpoint returned an empty answer.", undefined, true);
  return { text, finishReason, usage };
}
