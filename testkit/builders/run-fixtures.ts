import type { CoderResult } from "../../src/coder/types.js";
import type { CommitChanges } from "../../src/workspace/read-commit-changes.js";
import type { PullRequestHead, RunRequest, RunTarget } from "../../src/run/run-request.js";

type Changed = Extract<CoderResult, { outcome: "changed" }>;

/** A run's settings as the config resolves them, with nothing run but what a test asks for. */
export function runSettings(over: Partial<RunRequest["settings"]> = {}): RunRequest["settings"] {
  return {
    model: "m",
    editFormat: "diff",
    mapTokens: 0,
    maxReflections: 1,
    setup: [],
    lint: [],
    autoTest: false,
    timeoutMs: 60_000,
    commandTimeoutMs: 1000,
    protectedPaths: [],
    budget: {},
    requireGreenChecks: false,
    draft: true,
    branchPrefix: "aider/",
    ...over,
  };
}

type PullRequestTarget = Extract<RunTarget, { kind: "pull-request" }>;
type IssueTarget = Extract<RunTarget, { kind: "issue" }>;
type ReviewCommentTarget = Extract<RunTarget, { kind: "review-comment" }>;
type BranchTarget = Extract<RunTarget, { kind: "branch" }>;

const HEAD: PullRequestHead = {
  headRef: "feature",
  headSha: "a".repeat(40),
  headCloneUrl: "https://github.com/acme/web.git",
  isFork: false,
};

/** A same-repository pull request #2 on branch `feature`. */
export function prTarget(over: Partial<Omit<PullRequestTarget, "kind">> = {}): PullRequestTarget {
  return { kind: "pull-request", number: 2, ...HEAD, ...over };
}

/** Branch `feature` with no pull request (the Action's `workflow_dispatch` there). */
export function branchTarget(over: Partial<Omit<BranchTarget, "kind">> = {}): BranchTarget {
  return { kind: "branch", ...HEAD, ...over };
}

/** Issue #1. */
export function issueTarget(over: Partial<Omit<IssueTarget, "kind">> = {}): IssueTarget {
  return { kind: "issue", number: 1, title: "Fix the thing", ...over };
}

/** A review comment on line 3 of `src/a.ts` of pull request #2. */
export function reviewCommentTarget(over: Partial<Omit<ReviewCommentTarget, "kind">> = {}): ReviewCommentTarget {
  return {
    kind: "review-comment",
    number: 2,
    commentId: 99,
    path: "src/a.ts",
    line: 3,
    diffHunk: "@@ -1,3 +1,3 @@",
    ...HEAD,
    ...over,
  };
}

/**
 * A run request as triage builds one — `/aider do it` by ann on acme/web's pull request #2 — typed in full, so a
 * test cannot carry a verb or a target the code does not know. Override what the test is about.
 */
export function runRequest(over: Partial<RunRequest> = {}): RunRequest {
  return {
    jobId: "j1",
    deliveryId: "d1",
    owner: "acme",
    repo: "web",
    installationId: 7,
    cloneUrl: "https://github.com/acme/web.git",
    defaultBranch: "main",
    target: prTarget(),
    verb: "run",
    message: "do it",
    untrustedContext: [],
    files: [],
    requester: { login: "ann", id: 3 },
    settings: runSettings(),
    ...over,
  };
}

/** A coder result that changed one file and committed it. */
export function changedResult(over: Partial<Changed> = {}): Changed {
  return {
    outcome: "changed",
    editedFiles: [{ path: "a.ts", added: 1, removed: 1 }],
    commit: { sha: "c".repeat(40), subject: "feat: x" },
    reflections: 0,
    tokens: { prompt: 1, completion: 1 },
    costUsd: null,
    explanation: "",
    shell: [],
    elapsedMs: 1,
    ...over,
  };
}

/** A commit as GitHub's API is asked for it (read back from git, or read ahead): one modified file, with its bytes. */
export function commitChanges(over: Partial<CommitChanges> = {}): CommitChanges {
  return {
    parent: "a".repeat(40),
    message: "fix: add\n\nCo-authored-by: ann <ann@example.com>\n",
    entries: [{ status: "M", srcMode: "100644", dstMode: "100644", dstOid: "b".repeat(40), path: "src/calc.py" }],
    bytes: 4,
    contents: new Map([["src/calc.py", Buffer.from("a+b\n")]]),
    ...over,
  };
}
