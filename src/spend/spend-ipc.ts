import type { SpendDecision, SpendEstimate, SpendGuard } from "../llm/spend-guard.js";
import type { TokenUsage } from "../llm/types.js";

/** A job process's spend request to its parent, which alone holds the ledger (and Redis's address). */
export type SpendRequest =
  | { spend: "reserve"; estimate: SpendEstimate }
  | { spend: "settle"; id: string; used: { tokens: TokenUsage; costUsd: number | null } };

/**
 * The job process's {@link SpendGuard}: each reserve and settle is a request to the parent over IPC (fork-worker's
 * `request`), answered by the parent's guard over the shared ledger. A job process never holds `REDIS_URL`.
 */
export function ipcSpendGuard(request: (message: unknown) => Promise<unknown>): SpendGuard {
  return {
    reserve: async (estimate) =>
      (await request({ spend: "reserve", estimate } satisfies SpendRequest)) as SpendDecision,
    settle: async (id, used) => {
      await request({ spend: "settle", id, used } satisfies SpendRequest);
    },
  };
}

/** The parent's answer to a job process's request: through this run's guard; anything else is refused. */
export async function answerSpendRequest(guard: SpendGuard, message: unknown): Promise<unknown> {
  const m = message as Partial<SpendRequest> | null;
  if (m?.spend === "reserve" && m.estimate) return guard.reserve(m.estimate);
  if (m?.spend === "settle" && typeof m.id === "string" && m.used) return guard.settle(m.id, m.used);
  throw new Error("unknown request from the job process");
}
