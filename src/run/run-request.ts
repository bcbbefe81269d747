import type { PrRunSpec } from "../context/pr-run-spec.js";
import type { RepoBudget } from "../config/budget-schema.js";
import type { EditFormatName } from "../edits/types.js";

/** A kind of the repository's commands, as `.github/aider.yml` names them. */
export type CheckBucket = "setup" | "lint" | "test";

/** Settings of one run, resolved from the repo config, the command's flags and the app's defaults. */
export interface RunSettings {
  model: string;
  weakModel?: string;
  editFormat: EditFormatName;
  /** Every run is two-step (`edit_format: architect`): the model plans, the editor model edits. */
  architect?: boolean;
  /** The model and edit format that turn a plan into edits (`editor_model`, `editor_edit_format`). */
  editorModel?: string;
  editorEditFormat?: EditFormatName;
  mapTokens: number;
  /** Prompt caching (`cache:` of the repo config, `AIDER_BOT_PROMPT_CACHE`); absent: on. */
  promptCache?: boolean;
  maxReflections: number;
  setup: string[];
  lint: string[];
  /** The first configured test command (what older readers of `test` expect); `tests` has them all. */
  test?: string;
  /** Every configured test command (`test:` may be a list); absent in jobs queued before it existed. */
  tests?: string[];
  /** `auto` (the default): commands not configured are discovered from the default branch; `off`: never. */
  checks?: "auto" | "off";
  /** Run the checks on the base too and tell its failures from the change's (docs/checks.md#baseline-failures-the-default-branch-has-too); default auto. */
  baseline?: "auto" | "off";
  /** Keys `.github/aider.yml` sets to an empty list (`lint: []`): no command of that kind runs, none is discovered. */
  emptied?: CheckBucket[];
  autoTest: boolean;
  /** Whole-job limit. */
  timeoutMs: number;
  /** Per lint/test command. */
  commandTimeoutMs: number;
  protectedPaths: string[];
  budget: { maxTokens?: number; maxUsd?: number };
  /** The repository's spend limits (`budget` in `.github/aider.yml`), applied under the operator's. */
  spendBudget?: RepoBudget;
  /** Models tried in order when the model fails (the repository's `fallback_models`, else the operator's). */
  fallbackModels?: string[];
  /** When true nothing is pushed unless lint and tests pass. */
  requireGreenChecks: boolean;
  draft: boolean;
  branchPrefix: string;
  /** The repository's instruction files: found by name (`instructions:`), `read:`, their token cap. */
  instructions?: { auto: boolean; read: string[]; maxTokens: number };
  /** `vision:` — whether the model takes images; absent: the model table decides. */
  vision?: boolean;
  /** `sandbox.image` of the repo config (container mode). */
  sandboxImage?: string;
  /** `sandbox.network.allow` of the repo config: hosts the `registries` network policy adds. */
  networkAllow?: string[];
  /** Commits made by GitHub's API, signed (`api`, the default when absent), or pushed with git. */
  commitSigning?: "api" | "git";
}

/** The head of a pull request a run works on (its branch, and whether it lives in a fork). */
export interface PullRequestHead {
  headRef: string;
  headSha: string;
  headCloneUrl: string;
  isFork: boolean;
  /** A fork's PR lets maintainers (and the App) push to its branch; with the fork's `owner/name`. */
  maintainerCanModify?: boolean;
  headRepoFullName?: string;
}

export type RunTarget =
  /** Push one commit to the PR's head branch. */
  | ({ kind: "pull-request"; number: number } & PullRequestHead)
  /**
   * Push one commit to a branch that has no pull request (the Action's `workflow_dispatch` on a feature branch):
   * no thread, so no status comment, reaction or check-run link to a PR; the result is the pushed commit.
   */
  | ({ kind: "branch" } & PullRequestHead)
  /** Branch off the default branch, push, open a PR that fixes the issue. */
  | { kind: "issue"; number: number; title: string }
  /** A review comment: like a PR, and the reply goes into the review thread. */
  | ({
      kind: "review-comment";
      number: number;
      commentId: number;
      path: string;
      line?: number;
      diffHunk: string;
    } & PullRequestHead);

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
  /** `plan`: the model answers with a plan, posted for approval; nothing is edited. */
  verb: "run" | "ask" | "undo" | "plan";
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
  /** The approved plan this run carries out (its editor turns it into edits). */
  plan?: ApprovedPlan;
}

/** A plan approved for a run: what the editor gets, and where the plan comment is (its task list is ticked). */
export interface ApprovedPlan {
  /** The plan's id (the job id of the run that made it). */
  id: string;
  commentId: number;
  /** The head commit the plan was made on: the run refuses to start on another. */
  sha: string;
  text: string;
  /** The approver's corrections (`/aider approve …`), when there were some. */
  corrections?: string;
}
