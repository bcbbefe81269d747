import { countTokens, loadTokenizer } from "./count-tokens.js";
import { LlmError } from "./llm-error.js";
import { modelSettings, type ModelSettingsTable } from "./model-settings.js";
import { costUsd, type PriceTable } from "./price-table.js";
import type { SpendGuard } from "./spend-guard.js";
import type { ChatMessage, CompletionRequest, CompletionResult, LlmClient, LlmErrorKind, TokenUsage } from "./types.js";

/** Failures another model may not share: rate limits, overload, outages, time-outs, a prompt too long for this one. */
const FALLBACK_KINDS: ReadonlySet<LlmErrorKind> = new Set([
  "rate-limited",
  "server",
  "network",
  "timeout",
  "context-too-long",
]);

export interface RouteModelsOptions {
  /** Models tried in order after the requested one fails in a way another model may not. */
  fallbacks: readonly string[];
  /** Holds each call's estimate before it is made and settles its usage after; absent: no shared limits. */
  guard?: SpendGuard;
  settings: ModelSettingsTable;
  prices: PriceTable;
  /** Retries per model while another model waits behind it (default 1); the last model keeps the client's. */
  retriesBeforeFallback?: number;
  logger?: { warn(obj: object, msg?: string): void };
}

/** Chat formats wrap each message in a few tokens (as estimate-usage counts them). */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

/**
 * The most a call may use: its prompt as counted, its completion at its cap (the call's, else the model's output
 * limit). With prompt caching, the leading messages the same model was sent in the run's previous call (`earlier`)
 * are priced as cache reads and the rest as cache writes (at the write price where the model has one, which is
 * never below input), so a spend limit holds what the call will really cost.
 */
export async function estimateCall(
  model: string,
  req: CompletionRequest,
  o: Pick<RouteModelsOptions, "settings" | "prices">,
  earlier: readonly ChatMessage[] = [],
): Promise<{ tokens: TokenUsage; costUsd: number | null }> {
  await loadTokenizer();
  const sizes = req.messages.map((m: ChatMessage) => PER_MESSAGE + countTokens(m.content));
  const prompt = REPLY_PRIMING + sizes.reduce((n, size) => n + size, 0);
  const completion = req.maxTokens ?? modelSettings(model, o.settings).settings.maxOutput;
  let tokens: TokenUsage = { prompt, completion };
  if (req.cache !== false) {
    let shared = 0;
    while (shared < earlier.length && shared < req.messages.length && same(earlier[shared]!, req.messages[shared]!))
      shared++;
    const cacheRead = sizes.slice(0, shared).reduce((n, size) => n + size, 0);
    tokens = { prompt, completion, ...(cacheRead > 0 ? { cacheRead } : {}), cacheWrite: prompt - cacheRead };
  }
  return { tokens, costUsd: costUsd(model, tokens, o.prices) };
}

function same(a: ChatMessage, b: ChatMessage): boolean {
  return a.role === b.role && a.content === b.content && (a.images?.length ?? 0) === (b.images?.length ?? 0);
}

/**
 * A client that puts every call through the spend guard and, when the model fails with a rate limit past its
 * `retry-after` bound, a server error, a time-out or a prompt too long for it, asks the next fallback model. A
 * refused reservation ends the call before any request (`spend-limit`). The answer names the model that gave it;
 * when every model failed, one error lists each model's failure.
 */
export function routeModels(client: LlmClient, o: RouteModelsOptions): LlmClient {
  /** The last messages each model answered per cache key (a run's), for the spend estimate's cache pricing. */
  const sent = new Map<string, readonly ChatMessage[]>();
  // Settling is off the answer's path: each settle is a round trip to the ledger (over IPC from a job process, a
  // durable write there), 10–30 ms that every round's answer waited for. The next reservation waits for it instead, so
  // the ledger a decision reads always holds this client's earlier calls as they really cost.
  let settling: Promise<void> = Promise.resolve();
  const settle = (hold: { guard: SpendGuard; id: string }, used: { tokens: TokenUsage; costUsd: number | null }) => {
    settling = settling
      .then(() => hold.guard.settle(hold.id, used))
      .catch((error: unknown) =>
        o.logger?.warn({ err: error }, "could not settle a model call's spend: its reservation stays as estimated"),
      );
  };
  return {
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      const models = [...new Set([req.model, ...o.fallbacks])];
      const sentKey = (model: string) => `${model}\n${req.cacheKey ?? ""}`;
      const failures: { model: string; error: LlmError }[] = [];
      for (const [i, model] of models.entries()) {
        const last = i === models.length - 1;
        const { guard } = o;
        const earlier = req.cacheKey ? (sent.get(sentKey(model)) ?? []) : [];
        if (guard) await settling;
        const hold = guard ? { guard, id: await reserve(guard, model, req, o, earlier) } : null;
        let result: CompletionResult;
        try {
          result = await client.complete({
            ...req,
            model,
            ...(last ? {} : { maxRetries: o.retriesBeforeFallback ?? 1 }),
          });
        } catch (error) {
          // A failed call is settled at nothing: endpoints do not bill an error, and a cancelled stream's usage is unknown.
          if (hold) settle(hold, { tokens: { prompt: 0, completion: 0 }, costUsd: 0 });
          if (!(error instanceof LlmError) || !FALLBACK_KINDS.has(error.kind) || req.signal?.aborted) throw error;
          failures.push({ model, error });
          if (last) throw allFailed(failures, error);
          o.logger?.warn(
            { model, next: models[i + 1], kind: error.kind, status: error.status },
            "model failed; trying the fallback model",
          );
          continue;
        }
        if (hold) settle(hold, { tokens: result.usage, costUsd: result.costUsd });
        // What this model's cache now holds for the run: the next round's estimate prices its prefix as reads.
        if (req.cacheKey && req.cache !== false) sent.set(sentKey(model), req.messages);
        return { ...result, model };
      }
      throw new Error("routeModels: no model to ask"); // unreachable: `models` holds at least the requested one
    },
  };
}

async function reserve(
  guard: SpendGuard,
  model: string,
  req: CompletionRequest,
  o: RouteModelsOptions,
  earlier: readonly ChatMessage[],
): Promise<string> {
  const estimate = await estimateCall(model, req, o, earlier);
  const decision = await guard.reserve({ model, ...estimate });
  if (!decision.ok) throw new LlmError("spend-limit", decision.message);
  return decision.id;
}

/** The error of a call every model failed: the last model's own when it was the only one, else one that names each. */
function allFailed(failures: { model: string; error: LlmError }[], lastError: LlmError): LlmError {
  if (failures.length === 1) return lastError;
  const lines = failures.map((f) => `\`${f.model}\`: ${f.error.message}`).join("; ");
  return new LlmError(
    lastError.kind,
    `every model failed — ${lines}. Try again later, or check the endpoints and \`fallback_models\`.`,
    {
      ...(lastError.status !== undefined ? { status: lastError.status } : {}),
      retryable: lastError.retryable,
    },
  );
}
