import type { TokenUsage } from "./types.js";

/** What one model call may cost at most: its prompt as counted, its completion at the output cap. */
export interface SpendEstimate {
  model: string;
  tokens: TokenUsage;
  /** USD at the model's price, or null when the price is unknown (only token limits can hold it then). */
  costUsd: number | null;
}

export type SpendDecision =
  | { ok: true; id: string }
  /** `message` says which limit, what was spent and when it resets; `limit` names it for metrics (`repo-day`). */
  | { ok: false; limit: string; message: string };

/**
 * The port a model call goes through when spend is limited: `reserve` before the request (refused → no request is
 * made), `settle` with the real usage after it, whether it succeeded or failed. Implemented over the shared ledger
 * (src/spend/); absent, calls are not limited beyond the run's own budget.
 */
export interface SpendGuard {
  reserve(estimate: SpendEstimate): Promise<SpendDecision>;
  settle(id: string, used: { tokens: TokenUsage; costUsd: number | null }): Promise<void>;
}
