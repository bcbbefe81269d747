import type { CheckRunStatus, CoderResult } from "../coder/types.js";
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

/** One check command of a run as the log line of its end names it: what ran, where, how, and how it went. */
export interface CheckRan {
  kind: "setup" | "lint" | "test";
  command: string;
  cwd?: string;
  asWritten?: boolean;
  status: CheckRunStatus;
}

/**
 * The commands the run's checks ran, in order, for its `run finished` log line (pure): an operator reads there which
 * of the repository's commands a run found and ran, and the replay benchmark runs the same ones on the host to time
 * them. Empty (no field) when the run ran no check.
 */
export function checksRan(outcome: RunOutcome): { checks?: CheckRan[] } {
  const runs = "result" in outcome ? (outcome.result?.checkRuns ?? []) : [];
  if (!runs.length) return {};
  return {
    checks: runs.map((r) => ({
      kind: r.kind,
      command: r.command,
      ...(r.cwd ? { cwd: r.cwd } : {}),
      ...(r.asWritten ? { asWritten: true } : {}),
      status: r.status,
    })),
  };
}
