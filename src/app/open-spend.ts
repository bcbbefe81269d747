import type { AppEnv } from "../config/env.js";
import type { RepoBudget } from "../config/budget-schema.js";
import type { RunJobData } from "../run/run-job-data.js";
import type { SpendGuard } from "../llm/spend-guard.js";
import { operatorLimitsFor, readBudgetFile } from "../spend/budget-file.js";
import { createLedgerGuard } from "../spend/ledger-spend-guard.js";
import { openSpendLedger } from "../spend/open-spend-ledger.js";
import { repositoryUsage } from "../spend/render-usage.js";
import { resolveLimits } from "../spend/spend-limits.js";
import { threadNumber } from "../run/run-target.js";

/** The app's side of spend limits: one guard per run over the shared ledger, and the `/aider usage` answer. */
export interface AppSpend {
  /** The guard of one run: its repository's limits (from the run's settings) under the operator's. */
  guardFor(job: RunJobData, onRefused?: (limit: string) => void): SpendGuard;
  /** This repository's spend today and this month against its limits (markdown). */
  usage(where: { installationId: number; owner: string; repo: string }, budget: RepoBudget): Promise<string>;
  close(): Promise<void>;
}

/**
 * Open the ledger (Redis when `REDIS_URL` is set, else LMDB under the data dir) and read the operator's budget
 * file. A budget file that cannot be read or is invalid stops the app from starting: it must never run without the
 * limits its operator set.
 */
export async function openSpend(env: Pick<AppEnv, "budgetFile" | "redisUrl" | "dataDir">): Promise<AppSpend> {
  const file = env.budgetFile ? await readBudgetFile(env.budgetFile) : null;
  const ledger = await openSpendLedger({ redisUrl: env.redisUrl, dataDir: env.dataDir });
  return {
    guardFor(job, onRefused) {
      const req = job.req;
      const limits = resolveLimits(
        operatorLimitsFor(file, req.installationId),
        req.settings.spendBudget ?? legacyBudget(req.settings.budget),
      );
      const number = threadNumber(req.target);
      const scope = {
        installationId: req.installationId,
        owner: req.owner,
        repo: req.repo,
        ...(number !== undefined ? { number } : {}),
        runId: req.jobId,
      };
      return createLedgerGuard({ ledger, scope, limits, ...(onRefused ? { onRefused } : {}) });
    },
    usage: (where, budget) =>
      repositoryUsage({
        ledger,
        ...where,
        limits: resolveLimits(operatorLimitsFor(file, where.installationId), budget),
        nowMs: Date.now(),
      }),
    close: () => ledger.close(),
  };
}

/** A job queued before spend limits existed carries only the run's limits. */
function legacyBudget(budget: { maxTokens?: number; maxUsd?: number }): RepoBudget {
  return {
    ...(budget.maxUsd !== undefined ? { max_usd: budget.maxUsd } : {}),
    ...(budget.maxTokens !== undefined ? { max_tokens: budget.maxTokens } : {}),
  };
}
