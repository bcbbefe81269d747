import type { LlmClient } from "../llm/types.js";
import { recordMetric } from "../metrics/record-metric.js";

/**
 * The model client with every answered call's usage and cost recorded (`aider_bot_model_tokens_total`,
 * `aider_bot_model_cost_usd_total`). In a job process the observation travels to the parent's registry.
 * The model is the one the call named, or the one the answer says answered (a fallback).
 */
export function meteredLlm(llm: LlmClient): LlmClient {
  return {
    async complete(req) {
      const result = await llm.complete(req);
      const answered = (result as { model?: unknown }).model;
      recordMetric({
        type: "model-usage",
        model: typeof answered === "string" ? answered : req.model,
        prompt: result.usage.prompt,
        completion: result.usage.completion,
        ...(result.usage.cacheRead ? { cacheRead: result.usage.cacheRead } : {}),
        ...(result.usage.cacheWrite ? { cacheWrite: result.usage.cacheWrite } : {}),
        costUsd: result.costUsd,
      });
      return result;
    },
  };
}
