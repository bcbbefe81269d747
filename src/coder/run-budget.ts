import type { TokenUsage } from "../llm/types.js";
import type { CoderOptions } from "./types.js";

/** Running totals of one run's LLM usage. */
export interface UsageTotals {
  tokens: TokenUsage;
  /** Null while every call so far had an unknown price. */
  costUsd: number | null;
}

export function emptyUsage(): UsageTotals {
  return { tokens: { prompt: 0, completion: 0 }, costUsd: null };
}

/** Add one call's usage; an unknown price leaves the known part as it is. */
export function addUsage(totals: UsageTotals, usage: TokenUsage, costUsd: number | null): UsageTotals {
  return {
    tokens: sumTokens(totals.tokens, usage),
    costUsd: costUsd === null ? totals.costUsd : (totals.costUsd ?? 0) + costUsd,
  };
}

/** Two usages added up; the cache counts appear only once some call had them. */
export function sumTokens(a: TokenUsage, b: TokenUsage): TokenUsage {
  const cacheRead = (a.cacheRead ?? 0) + (b.cacheRead ?? 0);
  const cacheWrite = (a.cacheWrite ?? 0) + (b.cacheWrite ?? 0);
  return {
    prompt: a.prompt + b.prompt,
    completion: a.completion + b.completion,
    ...(cacheRead > 0 ? { cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWrite } : {}),
  };
}

/** A message when the token or cost budget is spent, else null. Checked after every call. */
export function budgetProblem(budget: CoderOptions["budget"], totals: UsageTotals): string | null {
  const used = totals.tokens.prompt + totals.tokens.completion;
  if (budget.maxTokens !== undefined && used > budget.maxTokens) {
    return `Token budget exceeded: used ${used} tokens, the limit is ${budget.maxTokens}.`;
  }
  if (budget.maxUsd !== undefined && totals.costUsd !== null && totals.costUsd > budget.maxUsd) {
    return `Cost budget exceeded: spent $${totals.costUsd.toFixed(4)}, the limit is $${budget.maxUsd}.`;
  }
  return null;
}

/**
 * Why the run must stop now — cancelled, or past its wall-clock limit — or null. The run checks this once before
 * each of its steps (a round's model call, applying, checking, committing) and after a failed model call.
 */
export function deadlineProblem(clock: {
  aborted: boolean;
  elapsedMs: number;
  maxWallMs: number | undefined;
}): string | null {
  if (clock.aborted) return "The run was cancelled.";
  const max = clock.maxWallMs;
  if (max !== undefined && clock.elapsedMs > max) return `The run exceeded its time limit of ${max} ms.`;
  return null;
}
