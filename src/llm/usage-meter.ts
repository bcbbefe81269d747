import type { CompletionResult } from "./types.js";

export interface UsageBudget {
  /** Prompt + completion tokens over the whole run. */
  maxTokens?: number;
  maxUsd?: number;
}

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD of the calls with a known price; null while no call had one. */
  costUsd: number | null;
  /** Calls whose model had no price: `costUsd` leaves them out. */
  unpricedCalls: number;
  /** True when any call's usage was estimated with the tokenizer. */
  estimated: boolean;
}

export type BudgetExceeded =
  | { kind: "tokens"; used: number; limit: number; message: string }
  | { kind: "cost"; used: number; limit: number; message: string };

export interface UsageMeter {
  /** Record one call. */
  add(result: Pick<CompletionResult, "usage" | "usageEstimated" | "costUsd">): void;
  totals(): UsageTotals;
  /** The first limit passed, or null while within budget. An unknown cost never exceeds `maxUsd`. */
  exceeded(): BudgetExceeded | null;
}

/**
 * Tokens and cost across the model calls of one run, with a budget check after each call.
 *
 * @example const meter = createUsageMeter({ maxUsd: 0.5 }); meter.add(result); if (meter.exceeded()) stop();
 */
export function createUsageMeter(budget: UsageBudget = {}): UsageMeter {
  const t: UsageTotals = { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: null, unpricedCalls: 0, estimated: false };
  return {
    add(result) {
      t.calls++;
      t.promptTokens += result.usage.prompt;
      t.completionTokens += result.usage.completion;
      t.estimated ||= result.usageEstimated;
      if (result.costUsd === null) t.unpricedCalls++;
      else t.costUsd = (t.costUsd ?? 0) + result.costUsd;
    },
    totals: () => ({ ...t }),
    exceeded() {
      const tokens = t.promptTokens + t.completionTokens;
      if (budget.maxTokens !== undefined && tokens > budget.maxTokens) {
        return { kind: "tokens", used: tokens, limit: budget.maxTokens, message: `Token budget exceeded: used ${tokens} tokens, the limit is ${budget.maxTokens}.` };
      }
      if (budget.maxUsd !== undefined && t.costUsd !== null && t.costUsd > budget.maxUsd) {
        return { kind: "cost", used: t.costUsd, limit: budget.maxUsd, message: `Cost budget exceeded: spent $${t.costUsd.toFixed(4)}, the limit is $${budget.maxUsd}.` };
      }
      return null;
    },
  };
}
