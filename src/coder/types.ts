import type { EditFormatName, EditFailure } from "../edits/types.js";
import type { CheckReport } from "../checks/types.js";
import type { SandboxMode } from "../exec/types.js";
import type { TokenUsage } from "../llm/types.js";

/** Everything one headless run needs to know (from CLI flags or from repo config + the GitHub request). */
export interface CoderOptions {
  /** The request. Untrusted text (issue bodies, comments) goes in `untrustedContext`, never here. */
  message: string;
  /** Issue / PR / review-comment text, rendered to the model as delimited data, never as instructions. */
  untrustedContext?: { label: string; text: string }[];
  /** The pull request's context blocks (src/context/render-context), sent as untrusted data before `untrustedContext`. */
  prContext?: { label: string; text: string }[];
  /** Files to edit ("in the chat"), repo-relative. Empty → the repo map chooses. */
  files: string[];
  /** Read-only reference files. */
  readFiles: string[];
  editFormat: EditFormatName;
  model: string;
  weakModel?: string;
  lintCommands: string[];
  testCommand?: string;
  autoTest: boolean;
  /** Run the test command once before the first model call and add what it says to the request (`fix-ci`). */
  reproduceTest?: boolean;
  /** Commands run once before the first check (e.g. `npm ci`). */
  setupCommands?: string[];
  maxReflections: number;
  /** Files the context points at (a pull request's changed files, review threads, CI annotations): they steer the map. */
  hintFiles?: readonly string[];
  mapTokens: number;
  /** Answer only, no edits (`/aider ask`). */
  askOnly?: boolean;
  commit: boolean;
  /** Requesting user, for the Co-authored-by trailer. */
  coAuthor?: { name: string; email: string };
  /** Extra commit trailers naming the run. */
  trailers?: string[];
  protectedPaths: string[];
  budget: { maxTokens?: number; maxUsd?: number; maxWallMs?: number };
  /** Per lint/test command timeout. */
  commandTimeoutMs: number;
  /** Where repo-map tag caches live. */
  cacheDir?: string;
}

export type CoderStage = "mapping" | "thinking" | "applying" | "syntax" | "lint" | "test" | "committing";

export interface CoderProgress {
  stage: CoderStage;
  round: number;
  detail?: string;
  /** A streamed text delta of the model's answer (stage "thinking"). */
  delta?: string;
}

interface CoderResultBase {
  reflections: number;
  tokens: TokenUsage;
  costUsd: number | null;
  /** The model's last explanation (prose outside edit blocks), for the summary. */
  explanation: string;
  /** Shell commands the model suggested (never run). */
  shell: string[];
  elapsedMs: number;
  /** Where the repository's commands ran (absent when no sandbox applies, e.g. the CLI). */
  sandbox?: SandboxMode;
  /** Set when lint/test/setup were configured but not run, with the reason. */
  checksSkipped?: string;
  /** Files the model asked for (named them in a reply) that the run added to the chat, within the caps. */
  filesAddedOnRequest?: string[];
}

export interface FileStat {
  path: string;
  added: number;
  removed: number;
}

export type CoderResult = CoderResultBase &
  (
    | { outcome: "changed"; editedFiles: FileStat[]; commit: { sha: string; subject: string } | null }
    | { outcome: "no-changes"; answer: string }
    | { outcome: "edit-failed"; failures: EditFailure[]; editedFiles: FileStat[] }
    | { outcome: "checks-failed"; report: CheckReport; editedFiles: FileStat[] }
    | { outcome: "llm-error"; errorKind: string; message: string }
    | { outcome: "budget-exceeded"; message: string; editedFiles: FileStat[] }
    | { outcome: "timed-out"; message: string; editedFiles: FileStat[] }
  );
