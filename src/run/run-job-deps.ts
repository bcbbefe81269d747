import type { Logger } from "pino";
import type { PreparedContext } from "./prepare/prepare-pr-context.js";
import type { ResolvedChecks } from "./prepare/resolve-checks.js";
import type { TranscriptStore } from "./report/publish-transcript.js";
import type { RunRequest } from "./run-request.js";
import type { RunCoderPort, RunGit, RunGitHub } from "./run-ports.js";
import type { RunStage } from "../run-stages.js";
import type { RunEnding, RunOutcome } from "./run-outcome.js";

/** What `runJob` (run-job.ts) runs over: the ports, the renderers of what users read, and the run's optional steps. */
export interface RunJobDeps {
  github: RunGitHub;
  git: RunGit;
  /** The coder on the run's checkout; its implementation is `createCheckoutCoder` (compose/checkout-coder.ts). */
  coder: RunCoderPort;
  /** Creates an empty private temporary directory; `remove` deletes it. */
  tempDir: { create(prefix: string): Promise<string>; remove(dir: string): Promise<void> };
  render: {
    stage(stage: RunStage, req: RunRequest): string;
    final(outcome: RunOutcome, req: RunRequest): string;
    /** The plan comment a `plan` run leaves (its status comment becomes the plan). */
    plan?(outcome: Extract<RunOutcome, { kind: "planned" }>, req: RunRequest): string;
  };
  /** The redactor of GitHub writes, applied to the transcript before it is cut, stored or published. */
  redact?(text: string): string;
  /** Where operators read transcripts later (`aider-bot transcript <run-id>`). */
  transcripts?: TranscriptStore;
  logger: Logger;
  now(): number;
  signal: AbortSignal;
  /** Least time between two stage edits of the status comment (default 3 s); the final edit is always made. */
  statusGapMs?: number;
  /**
   * Work started while the branch is cloned, for the job's later steps (loading the grammar of the repository's
   * language); not awaited, and its failure is its own business.
   */
  warmWhileCloning?(req: RunRequest): void;
  /** The PR/issue context, read before the coder (run/prepare/prepare-pr-context; never throws). */
  prContext?(req: RunRequest): Promise<PreparedContext | null>;
  /**
   * The run's check commands (configured keys, else discovered on the DEFAULT branch); started while the
   * branch is cloned. Absent: the configured commands run as plain options.
   */
  checkPlan?(req: RunRequest): Promise<ResolvedChecks>;
  /** After the outcome, before the final status (review-thread replies); markdown for the status comment. */
  afterRun?(req: RunRequest, ending: RunEnding, prepared: PreparedContext | null): Promise<string | null>;
}

/** Moves the run's status comment to a stage (the same stage twice is one update). */
export type Stage = (s: RunStage) => void;
