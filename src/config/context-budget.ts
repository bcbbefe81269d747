/** The sources of a pull request's context, in the order they are shown to the model. */
export const SOURCE_KINDS = [
  "prior_runs",
  "review_threads",
  "checks",
  "conversation",
  "closing_issues",
  "diff",
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Default per-source caps (tokens) and total; the caps also act as weights when the total is smaller than their sum. */
export const DEFAULT_CONTEXT_BUDGET = {
  max_tokens: 12_000,
  prior_runs: 1_500,
  review_threads: 3_000,
  checks: 2_000,
  conversation: 2_000,
  closing_issues: 1_000,
  diff: 5_000,
} as const satisfies Record<SourceKind | "max_tokens", number>;

export type ContextBudget = Record<SourceKind | "max_tokens", number>;
