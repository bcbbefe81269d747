/** What the coder needs from a model endpoint. `src/llm/` implements it over the openai SDK. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
  /** Images sent with a user message's text, as OpenAI image parts; only to a model that accepts them. */
  images?: readonly ImagePart[];
  /**
   * This message ends a stable prefix of the request (system prompt, repository instructions, files, an earlier
   * round): providers with explicit cache breakpoints (Anthropic, Bedrock, Vertex) mark the cache there. Ignored by
   * providers that cache automatically (OpenAI, Azure) and when caching is off.
   */
  cacheBreakpoint?: boolean;
}

/** One image for the model: its bytes as a `data:` URL and its size (for token accounting). */
export interface ImagePart {
  /** `data:image/png;base64,…` */
  dataUrl: string;
  width: number;
  height: number;
}

export interface TokenUsage {
  /** Every input token of the request, cached or not. */
  prompt: number;
  completion: number;
  /** Of `prompt`, the tokens read from the provider's prompt cache (priced at the model's cache-read price). */
  cacheRead?: number;
  /** Of `prompt`, the tokens written to the provider's prompt cache (priced at the model's cache-write price). */
  cacheWrite?: number;
}

export interface CompletionRequest {
  model: string;
  messages: readonly ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Called with each streamed text delta. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  /** Retries of this call on the same model (default: the client's); fewer when a fallback model waits. */
  maxRetries?: number;
  /**
   * Prompt caching for this call: `undefined`/`true` uses the provider's cache (breakpoints from
   * `ChatMessage.cacheBreakpoint`, `prompt_cache_key` from `cacheKey`); `false` sends no cache hints.
   */
  cache?: boolean;
  /** A key shared by every call of one run, so OpenAI-style providers route its rounds to the same cache. */
  cacheKey?: string;
}

export interface CompletionResult {
  /** The answer with reasoning sections (`<think>…</think>`) removed. */
  text: string;
  finishReason: "stop" | "length" | "other";
  usage: TokenUsage;
  /** True when usage was estimated with a tokenizer because the endpoint sent none. */
  usageEstimated: boolean;
  /** USD, or null when the model has no known price. */
  costUsd: number | null;
  /** The model that answered (a fallback's name when the requested model failed). */
  model?: string;
}

export type LlmErrorKind =
  | "auth" // 401/403
  | "model-not-found" // 404
  | "context-too-long"
  | "rate-limited" // 429 after retries
  | "server" // 5xx after retries
  | "network" // connection reset / refused after retries
  | "timeout"
  | "truncated" // finish_reason length and no way to continue
  | "bad-request"
  | "aborted"
  | "spend-limit"; // refused before the call: a spend limit would be crossed

export interface LlmClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
}
