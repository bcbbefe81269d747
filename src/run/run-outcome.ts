import type { CoderResult } from "../coder/types.js";
import type { ResolvedChecks } from "./prepare/resolve-checks.js";

/** The stages a run reports in its status comment, in order. */
export type RunStage = "queued" | "cloning" | "mapping" | "thinking" | "applying" | "lint" | "tests" | "pushing";

/** How one job ended: rendered into the final status comment, the reaction and the Check Run. */
export type RunOutcome = {
  elapsedMs: number;
  /** Markdown the final status adds (context sources and tokens, review-thread replies). */
  context?: string;
  /** The run's check commands and where they came from (what was left out, and why). */
  checks?: ResolvedChecks;
  /** How the commit was published when that needs saying (a fallback to `git push`, and why). */
  signing?: string;
} & (
  | { kind: "pushed"; result: CoderResult; sha: string; url: string }
  | { kind: "pull-request"; result: CoderResult; sha: string; pr: { number: number; url: string }; branch: string }
  /** `reason`: why a fork that allows maintainer edits still gets a patch (GitHub refused the App's commit). */
  | { kind: "patch"; result: CoderResult; sha: string; patch: string; reason?: string }
  | { kind: "not-pushed"; result: CoderResult }
  | { kind: "answered"; result: CoderResult }
  /** A plan was made (on commit `sha`) and posted for approval; nothing was edited. */
  | { kind: "planned"; result: CoderResult; plan: string; sha: string }
  | { kind: "reverted"; sha: string; revertedSha: string; url: string }
  | { kind: "nothing-to-do"; message: string }
  | { kind: "refused"; message: string }
  | { kind: "error"; message: string }
  /** Stopped by `/aider cancel` or by the app shutting down; nothing was pushed. */
  | { kind: "cancelled"; reason: "cancel" | "shutdown"; result?: CoderResult }
);
