import type { ImpliedTool, RunnerFallback } from "../checks/discover/types.js";
import type { EditFormatName, EditFailure } from "../edits/types.js";
import type { CheckReport } from "../checks/types.js";
import type { EgressReport, SandboxMode } from "../exec/types.js";
import type { TokenUsage } from "../llm/types.js";
import type { ImageSet } from "./issue-images.js";
import type { InstructionSet, InstructionUse } from "./repo-instructions.js";

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
  /**
   * The repository's instruction files (AGENTS.md…, `read:`), loaded and sanitised before the run: each
   * round shows the root ones and the nearest AGENTS.md of the chat files, within their token cap.
   */
  instructions?: InstructionSet;
  /** Images from the issue or PR (already downloaded and checked) and notes on the ones left out. */
  images?: ImageSet;
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
  /**
   * The repository's commands with where each came from: when given, they replace `setupCommands`,
   * `lintCommands` and `testCommand` (tests still run only with `autoTest`).
   */
  checkCommands?: CheckCommandSpec[];
  maxReflections: number;
  /** Files the context points at (a pull request's changed files, review threads, CI annotations): they steer the map. */
  hintFiles?: readonly string[];
  mapTokens: number;
  /** Answer only, no edits (`/aider ask`). */
  askOnly?: boolean;
  /** With `askOnly`: answer as the architect of a two-step run, a plan for an editor, no edit blocks. */
  architect?: boolean;
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
  /**
   * Prompt caching (repo config `cache`, `AIDER_BOT_PROMPT_CACHE`): on unless false. On, each request carries cache
   * breakpoints and the run's cache key; the message layout is the same either way.
   */
  promptCache?: boolean;
  /** The key every call of this run shares (OpenAI's `prompt_cache_key`); absent: a random one per run. */
  cacheKey?: string;
}

/** One of the repository's setup/lint/test commands, as the loop runs it. */
export interface CheckCommandSpec {
  kind: "setup" | "lint" | "test";
  command: string;
  /** Where it came from: `.github/aider.yml`, `.github/workflows/ci.yml job test, step 3`, … */
  source?: string;
  /** Folder it runs in, relative to the checkout. */
  cwd?: string;
  /** Run exactly as written: no edited files appended to a lint command (a discovered `npm run lint`, `make lint`). */
  asWritten?: boolean;
  /** How it differs from CI's own line and why (a coverage wrapper taken off). */
  adapted?: string;
  /** What stands in for it when its Python project runner is not there (a discovered command). */
  fallback?: RunnerFallback;
  /** A setup line that only installs these Python project runners: its failure leaves the stand-ins to run. */
  installsRunners?: string[];
  /** An implied tool install, served from the repository's tools shelf where the sandbox keeps one. */
  tool?: ImpliedTool;
}

/** What became of one check command in the run (its last attempt). */
export type CheckRunStatus = "passed" | "failed" | "pre-existing" | "tool-missing" | "could-not-run" | "not-run";

export interface CheckRunRecord extends CheckCommandSpec {
  status: CheckRunStatus;
  /** Why it did not run or could not (an earlier check failed, the sandbox is unavailable, the exit code). */
  note?: string;
  /**
   * It failed on the base too, the same way (status `pre-existing`, or a setup or tool failure): what the base's
   * run said. Not the change's doing; never sent to the model to fix.
   */
  onBase?: string;
  /** The sandbox never ran it (an image that could not be pulled, a container that did not start); `note` says why. */
  notRun?: true;
  /** A `pre-existing` test command whose failing tests were named: it ran the tests, so it still judged the change. */
  testsRan?: boolean;
  /** Its Python project runner was not there: what ran in its place with the sandbox's Python, and why. */
  ranInstead?: { command: string; why: string };
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
  /** The sandbox's network policy and what it refused (absent when no sandbox applies). */
  network?: EgressReport;
  /** Set when lint/test/setup were configured but not run, with the reason. */
  checksSkipped?: string;
  /** The models that answered this run's edit calls, in order (a fallback's name when the model failed). */
  models?: string[];
  /** The instruction files the run showed the model (each at its largest share over the rounds), for the status table. */
  instructionFiles?: InstructionUse[];
  /** Each setup/lint/test command of the run and what became of it (absent when there were none). */
  checkRuns?: CheckRunRecord[];
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
