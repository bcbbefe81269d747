import type { PrRunSpec } from "../context/pr-run-spec.js";
import type { EditFormatName } from "../edits/types.js";

/** Settings of one run, resolved from the repo config, the command's flags and the app's defaults. */
export interface RunSettings {
  model: string;
  weakModel?: string;
  editFormat: EditFormatName;
  mapTokens: number;
  maxReflections: number;
  setup: string[];
  lint: string[];
  test?: string;
  autoTest: boolean;
  /** Whole-job limit. */
  timeoutMs: number;
  /** Per lint/test command. */
  commandTimeoutMs: number;
  protectedPaths: string[];
  budget: { maxTokens?: number; maxUsd?: number };
  /** When true nothing is pushed unless lint and tests pass. */
  requireGreenChecks: boolean;
  draft: boolean;
  branchPrefix: string;
  /** Issue #34: commits made by GitHub's API, signed (`api`, the default when absent), or pushed with git. */
  commitSigning?: "api" | "git";
}

export type RunTarget =
  /** Push one commit to the PR's head branch. */
  | {
      kind: "pull-request";
      number: number;
      headRef: string;
      headSha: string;
      headCloneUrl: string;
      isFork: boolean;
      /** Issue #34: a fork's PR lets maintainers (and the App) push to its branch; with the fork's `owner/name`. */
      maintainerCanModify?: boolean;
      headRepoFullName?: string;
    }
  /** Branch off the default branch, push, open a PR that fixes the issue. */
  | { kind: "issue"; number: number; title: string }
  /** A review comment: like a PR, and the reply goes into the review thread. */
  | {
      kind: "review-comment";
      number: number;
      headRef: string;
      headSha: string;
      headCloneUrl: string;
      isFork: boolean;
      maintainerCanModify?: boolean;
      headRepoFullName?: string;
      commentId: number;
      path: string;
      line?: number;
      diffHunk: string;
    };

/** Everything run-job needs to carry out one request; built from a queued job. */
export interface RunRequest {
  jobId: string;
  deliveryId: string;
  owner: string;
  repo: string;
  installationId: number;
  cloneUrl: string;
  defaultBranch: string;
  /** The repository's main language as GitHub names it (`repository.language`): which grammar to load while cloning. */
  language?: string;
  target: RunTarget;
  verb: "run" | "ask" | "undo";
  /** The maintainer's instruction (a command's text, or the issue title for label runs). */
  message: string;
  /** Issue/PR text shown to the model as data, never as instructions. */
  untrustedContext: { label: string; text: string }[];
  files: string[];
  /** Who asked; `isBot` (an allowed bot, or the app itself for schedules) gets no co-author trailer or review request. */
  requester: { login: string; id?: number; isBot?: boolean };
  settings: RunSettings;
  /** The issue comment that carried the command (a long request is read back from it by retry), when there was one. */
  triggerCommentId?: number;
  /** The PR-context budget and the PR loop this run closes; absent (schedules): no PR context is read. */
  context?: PrRunSpec;
}
