import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { LlmError } from "./llm-error.js";
import { withStreamTimeout } from "./stream-timeout.js";
import type { CompletionResult, TokenUsage } from "./types.js";

/** One HTTP answer: possibly a partial text when the output limit cut it off. */
export interface CompletionPart {
  text: string;
  finishReason: CompletionResult["finishReason"];
  /** Null when the endpoint reported no usage. */
  usage: TokenUsage | null;
}

export interface RequestCompletionInput {
  client: OpenAI;
  model: string;
  messages: ChatCompletionMessageParam[];
  temperature?: number;
  maxTokens?: number;
  /** Sent as `prompt_cache_key`, so OpenAI and Azure route a run's rounds to the same prompt cache. */
  cacheKey?: string | undefined;
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  stream: boolean;
  /** No answer yet, or no streamed chunk for this long, ends the attempt with a retryable timeout. */
  timeoutMs: number;
  /** For messages. */
  host: string;
}

/**
 * One request, without retries. The SDK's own timeout stops at the response headers, so a stream that stalls
 * half-way would hang forever: our timer covers the whole exchange and restarts at every chunk, so a long answer
 * that keeps flowing is never cut off.
 */
export async function requestCompletion(input: RequestCompletionInput): Promise<CompletionPart> {
  return withStreamTimeout(input, (signal, arm) =>
    input.stream ? streamed(input, signal, arm) : whole(input, signal),
  );
}

function params(input: RequestCompletionInput) {
  return {
    model: input.model,
    messages: input.messages,
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    ...(input.maxTokens !== undefined ? { max_tokens: input.maxTokens } : {}),
    ...(input.cacheKey ? { prompt_cache_key: input.cacheKey } : {}),
  };
}

async function streamed(
  input: RequestCompletionInput,
  signal: AbortSignal,
  onChunk: () => void,
): Promise<CompletionPart> {
  const stream = await input.client.chat.completions.create(
    { ...params(input), stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let text = "";
  let finish: string | null = null;
  let usage: TokenUsage | null = null;
  for await (const chunk of stream) {
    onChunk();
    const choice = chunk.choices[0];
    const delta = choice?.delta?.content ?? "";
    if (delta) {
      text += delta;
      input.onDelta?.(delta);
    }
    if (choice?.finish_reason) finish = choice.finish_reason;
    // Some servers repeat a running total in every chunk: the last one wins.
    if (chunk.usage) usage = usageOf(chunk.usage);
  }
  if (finish === null && text === "") {
    throw new LlmError(
      "server",
      `The model endpoint at ${input.host} sent an empty stream — it may not support streaming.`,
      { retryable: true },
    );
  }
  return { text, finishReason: mapFinish(finish), usage };
}

async function whole(input: RequestCompletionInput, signal: AbortSignal): Promise<CompletionPart> {
  const completion = await input.client.chat.completions.create({ ...params(input), stream: false }, { signal });
  const choice = completion.choices[0];
  const text = choice?.message?.content ?? "";
  if (text) input.onDelta?.(text);
  const usage = completion.usage ? usageOf(completion.usage) : null;
  return { text, finishReason: mapFinish(choice?.finish_reason ?? null), usage };
}

function mapFinish(reason: string | null): CompletionResult["finishReason"] {
  return reason === "stop" ? "stop" : reason === "length" ? "length" : "other";
}

/** The endpoint's usage; OpenAI and Azure report the prompt's cached part in `prompt_tokens_details.cached_tokens`. */
function usageOf(usage: OpenAI.CompletionUsage): TokenUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    prompt: usage.prompt_tokens,
    completion: usage.completion_tokens,
    ...(cached ? { cacheRead: cached } : {}),
  };
}
