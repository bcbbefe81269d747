import type { CoderResult } from "../coder/types.js";
import type { ResolvedChecks } from "./prepare/resolve-checks.js";

/**
 * How the phases ended a run, as the phase that ended it returns it (prepare refusing, code cancelled or answering,
 * publish pushing). Run-job adds what only the whole run knows and builds the {@link RunOutcome} once from it.
 */
export type RunEnding =
  | {
      kind: "pushed";
      result: CoderResult;
      sha: string;
      url: string;
      /** How the commit was published when that needs saying (a fallback to `git push`, and why). */
      signing?: string;
    }
  | {
      kind: "pull-request";
      result: CoderResult;
      sha: string;
      pr: { number: number; url: string };
      branch: string;
      signing?: string;
    }
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
  | { kind: "cancelled"; reason: "cancel" | "shutdown"; result?: CoderResult };

/** What the whole run adds to its ending: its time, the report's notes, its check plan. */
export interface RunReportParts {
  elapsedMs: number;
  /** Markdown the final status adds (context sources and tokens, review-thread replies, the transcript's link). */
  context?: string;
  /** The run's check commands and where they came from (what was left out, and why). */
  checks?: ResolvedChecks;
}

/** How one job ended: rendered into the final status comment, the reaction and the Check Run. Built once, in run-job. */
export type RunOutcome = RunEnding & RunReportParts;
