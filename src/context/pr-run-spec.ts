import type { RepoConfig } from "../config/repo-config.js";
import type { ContextBudget } from "../config/context-budget.js";

/**
 * Which pull-request loop a run closes: a plain request (which still reads the PR's context), `/aider
 * address-reviews`, or `/aider fix-ci` — asked for, or started by the app itself after a failed check suite (`autofix`).
 */
export type PrMode =
  | { kind: "plain" }
  | { kind: "address-reviews"; threads: string[]; extra: string }
  | { kind: "fix-ci"; extra: string; autofix?: { round: number; maxRounds: number; sha: string } };

/** What a queued run carries for its context (plain data: a job is serialised into the queue). */
export interface PrRunSpec {
  mode: PrMode;
  budget: ContextBudget;
  /** `reviews.resolve_threads` */
  resolveThreads: boolean;
}

/** The spec of a run from the repository's config (pure). */
export function prRunSpec(config: Pick<RepoConfig, "context" | "reviews">, mode: PrMode): PrRunSpec {
  // `context.instructions` caps the repository's instruction files, which travel in the run's settings instead.
  const { instructions: _instructions, ...budget } = config.context;
  return { mode, budget, resolveThreads: config.reviews.resolve_threads };
}

/**
 * The request as the status comment shows and stores it (pure). `/aider retry` re-runs it as a plain request, which
 * reads the same threads and checks again, so this wording is an instruction that still makes sense then.
 */
export function describeMode(mode: PrMode): string {
  switch (mode.kind) {
    case "plain":
      return "";
    case "address-reviews": {
      const which = mode.threads.length
        ? `review thread${mode.threads.length === 1 ? "" : "s"} ${mode.threads.join(", ")}`
        : "the unresolved review threads";
      return `Address ${which} of this pull request.${mode.extra.trim() ? `\n${mode.extra.trim()}` : ""}`;
    }
    case "fix-ci":
      return mode.autofix
        ? `Fix the failing checks of this pull request (automatic CI fix, round ${mode.autofix.round} of ${mode.autofix.maxRounds}: \`ci.autofix\` is on).`
        : `Fix the failing checks of this pull request.${mode.extra.trim() ? `\n${mode.extra.trim()}` : ""}`;
  }
}
