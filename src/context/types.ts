/** The sources of a pull request's context (issue #14), in the order they are shown to the model. */
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

/** One piece of a source (a file's diff, a comment, a thread, a check, an earlier run), already sanitised. */
export interface ContextItem {
  /** Stable id (path, comment id, thread id, check run id, job id). */
  id: string;
  /** Short label shown in the block, e.g. "src/a.ts (+3 −1)" or "@alice, 2026-11-02". */
  label: string;
  text: string;
  tokens: number;
  /** Which end survives shortening: the head (default) or the tail (log output, where the error is at the end). */
  keep?: "head" | "tail";
  /** May be shortened by the weak model instead of cut (earlier runs' long answers). */
  summarisable?: boolean;
}

export interface ContextSource {
  kind: SourceKind;
  /** Items in priority order: what must survive a tight budget comes first. */
  items: ContextItem[];
  /** How a maintainer (or the model's user) can read what was cut, e.g. "the PR's Files tab". */
  seeAlso: string;
  /** Set when the source could not be read at all (missing permission, API error): shown as a note. */
  unavailable?: string;
}
