import type { CoderResult } from "../../src/coder/types.js";
import type { RunRequest } from "../../src/run/run-request.js";

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
