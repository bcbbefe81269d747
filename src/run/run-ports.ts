import type { CoderDeps } from "../coder/coder-deps.js";
import type { TranscriptSink } from "../coder/transcript/transcript-event.js";
import type { CommitChanges } from "../workspace/read-commit-changes.js";
import type { CoderOptions, CoderProgress, CoderResult } from "../coder/types.js";
import type { ApiCommitRequest, ApiCommitResult } from "../github/repo-github.js";
import type { CheckoutWork } from "./checkout-work.js";
import type { PendingCheckout } from "../workspace/pending-checkout.js";
import type { RunRequest } from "./run-request.js";

/** The GitHub writes one run makes, bound to its repository, issue/PR and status comment. */
export interface RunGitHub {
  /** Replace the status comment's body (created "queued" at triage). */
  updateStatus(markdown: string): Promise<void>;
  react(content: "rocket" | "confused"): Promise<void>;
  /** Create an in-progress Check Run on a commit; null when the App lacks the permission. */
  startCheckRun(headSha: string): Promise<number | null>;
  /** `text`: the run's transcript, the Check Run's detailed output. */
  finishCheckRun(
    id: number,
    result: { conclusion: "success" | "failure" | "neutral"; title: string; summary: string; text?: string },
  ): Promise<void>;
  /** Web address of a Check Run (where its transcript is read). */
  checkRunUrl?(id: number): string;
  /** Tick these steps of the plan comment (the approved plan's live checklist). */
  tickPlan?(commentId: number, done: number[]): Promise<void>;
  /** A new plan was posted in the status comment: older open plans of the thread are superseded. */
  supersedeOlderPlans?(): Promise<void>;
  /**
   * The pull request of an issue run's branch: the open one, or a new one the GitHub side words (title, "fixes"
   * link, files, explanation) and asks the requester to review.
   */
  openPullRequest(pr: {
    branch: string;
    base: string;
    draft: boolean;
    issue: { number: number; title: string };
    requester: RunRequest["requester"];
    result: CoderResult;
  }): Promise<{ number: number; url: string }>;
  replyToReviewComment(pullNumber: number, commentId: number, body: string): Promise<void>;
  /** A fresh installation token for git over HTTP (never logged, never in a URL). */
  installationToken(): Promise<string>;
  /** Web URL of a commit, for links in comments. */
  commitUrl(sha: string): string;
  /**
   * Commits GitHub makes (and signs) through its API, on this repository or on `repo` (a fork's branch).
   * Absent: every commit is pushed with git.
   */
  apiCommits?: {
    create(req: ApiCommitRequest, repo?: { owner: string; repo: string }): Promise<ApiCommitResult>;
    /** A new branch at `sha` on this repository (an issue run's branch, before its commit). */
    createBranch(branch: string, sha: string): Promise<void>;
  };
}

/** Git operations of one run, on a fresh temporary checkout. */
export interface RunGit {
  /**
   * A fresh checkout of the branch. `onTree`: told once the checkout's git has the commit, before its files are
   * written, by a driver that can (the App's mirror); the result then names that commit if the files written are its.
   */
  clone(req: {
    url: string;
    branch: string;
    dir: string;
    token: string;
    onTree?(commit: string): void;
  }): Promise<void | { tree: string | null }>;
  headSha(dir: string): Promise<string>;
  createBranch(dir: string, branch: string): Promise<void>;
  /** Push without force; throws PushRejected-like errors with an actionable message. */
  push(req: { dir: string; branch: string; token: string }): Promise<void>;
  /** Stage and commit exactly these paths (used when checks failed but green checks are not required). */
  commitPaths(req: {
    dir: string;
    paths: string[];
    subject: string;
    body: string;
    trailers: string[];
  }): Promise<string>;
  /** The newest commits of HEAD (at most n), newest first, with full messages. */
  recentCommits(dir: string, n: number): Promise<{ sha: string; message: string }[]>;
  /** `git revert --no-edit` of a commit; returns the new sha. */
  revert(req: { dir: string; sha: string; trailers: string[] }): Promise<string>;
  /** `git format-patch`-style text of the commits after `base`. */
  formatPatch(dir: string, base: string): Promise<string>;
  /** The commit `sha` as its changes against its parent. Absent: commits are pushed with git. */
  readCommit?(dir: string, sha: string): Promise<CommitChanges>;
  /**
   * Remove the checkout's files, keeping its `.git` (only where the checkout dies with the run): started while
   * GitHub's API makes the commit, whose contents are read by then. Absent: the files stay until the run's end.
   */
  clearWorkTree?(dir: string): Promise<void>;
  /** HEAD's files written again after `clearWorkTree` (git must push after all). */
  restoreWorkTree?(dir: string): Promise<void>;
  /** After an API commit: make the checkout's HEAD GitHub's commit (only where the checkout outlives the run). */
  adoptRemoteCommit?(req: { dir: string; branch: string; oid: string; token: string }): Promise<void>;
}

/** Runs the coder on a checkout (wired to the real LLM, checks, repo map and workspace by the caller). */
export type RunCoderPort = (
  root: string,
  options: CoderOptions,
  hooks: {
    onProgress: (p: CoderProgress) => void;
    signal: AbortSignal;
    onTranscript?: TranscriptSink;
    /** Work the coder starts on the checkout that may still run when it returns (the base's run): see CheckoutWork. */
    keep?(work: CheckoutWork): void;
    /** The checkout's files are still being written (see PendingCheckout); absent: they are written. */
    pending?: PendingCheckout;
    /** The run's commit published without a local commit first (run/publish/commit-ahead.ts). */
    publishAhead?: CoderDeps["publishAhead"];
  },
) => Promise<CoderResult>;
