import type { CheckReport } from "../../../src/checks/types.js";
import type { CheckCommandRequest, CoderDeps } from "../../../src/coder/coder-deps.js";
import type { CoderOptions, CoderProgress } from "../../../src/coder/types.js";
import type { CompletionRequest, CompletionResult } from "../../../src/llm/types.js";
import type { CommitRequest } from "../../../src/workspace/types.js";
import { fakeParse, fakeParseAndApply } from "./fake-engine.js";
import { fakeWorkspace, type FakeWorkspace } from "./fake-workspace.js";

export type ScriptedAnswer = string | Partial<CompletionResult> | Error;

export interface FakeDeps extends CoderDeps {
  workspace: FakeWorkspace;
  requests: CompletionRequest[];
  commits: CommitRequest[];
  checkRuns: CheckCommandRequest[];
  progress: CoderProgress[];
  clock: { ms: number };
}

export interface FakeDepsOptions {
  files: Record<string, string>;
  answers: ScriptedAnswer[];
  /** Decide each lint/test/setup outcome; default: all pass. */
  check?: (req: CheckCommandRequest, nth: number) => Partial<CheckReport>;
  repoMap?: string;
  commitMessage?: string | null;
  /** Milliseconds the fake clock advances per LLM call. */
  msPerCall?: number;
}

/** Fake dependencies: in-memory files, a scripted LLM, a fake SEARCH/REPLACE engine and scripted checks. */
export function fakeDeps(opts: FakeDepsOptions): FakeDeps {
  const workspace = fakeWorkspace(opts.files);
  const answers = [...opts.answers];
  const requests: CompletionRequest[] = [];
  const commits: CommitRequest[] = [];
  const checkRuns: CheckCommandRequest[] = [];
  const progress: CoderProgress[] = [];
  const clock = { ms: 0 };
  const changed = (paths: readonly string[]) =>
    paths.filter((p) => workspace.files.get(p) !== workspace.original.get(p));
  return {
    workspace,
    requests,
    commits,
    checkRuns,
    progress,
    clock,
    llm: {
      async complete(req) {
        requests.push({ ...req, messages: req.messages.map((m) => ({ ...m })) });
        clock.ms += opts.msPerCall ?? 10;
        const next = answers.shift();
        if (next === undefined) throw new Error("scripted LLM: no answer left");
        if (next instanceof Error) throw next;
        const result: CompletionResult =
          typeof next === "string"
            ? {
                text: next,
                finishReason: "stop",
                usage: { prompt: 100, completion: 20 },
                usageEstimated: false,
                costUsd: 0.01,
              }
            : {
                text: "",
                finishReason: "stop",
                usage: { prompt: 100, completion: 20 },
                usageEstimated: false,
                costUsd: 0.01,
                ...next,
              };
        req.onDelta?.(result.text);
        return result;
      },
    },
    parse: (_format, text) => fakeParse(text),
    parseAndApply: (_format, text, snapshot) => fakeParseAndApply(text, snapshot),
    async syntaxCheck(path, content) {
      if (!path.endsWith(".ts")) return null;
      const ok = !content.includes("SYNTAX_ERROR");
      return { kind: "syntax", ok, command: "", output: ok ? "" : `${path}:1: unexpected token`, locations: [] };
    },
    async runCheck(req) {
      checkRuns.push(req);
      const nth = checkRuns.filter((r) => r.kind === req.kind).length;
      const partial = opts.check?.(req, nth) ?? {};
      return { kind: req.kind, ok: true, command: req.command, output: "", locations: [], ...partial };
    },
    renderCheckReflection: (report) => `CHECK FAILED (${report.kind}) ${report.command}\n${report.output}`,
    repoMap: opts.repoMap === undefined ? undefined : async () => ({ text: opts.repoMap ?? "", rankedFiles: [] }),
    async commit(req) {
      commits.push(req);
      return {
        sha: "abc1234",
        subject: req.subject,
        stats: changed(req.paths).map((path) => ({ path, added: 1, removed: 1 })),
      };
    },
    diffText: async (paths) =>
      changed(paths)
        .map((p) => `diff --git a/${p} b/${p}`)
        .join("\n"),
    diffStats: async (paths) => changed(paths).map((path) => ({ path, added: 1, removed: 1 })),
    generateCommitMessage: opts.commitMessage === undefined ? undefined : async () => opts.commitMessage ?? null,
    onProgress: (p) => progress.push(p),
    now: () => clock.ms,
  };
}

/** Options with test defaults. */
export function coderOptions(overrides: Partial<CoderOptions> = {}): CoderOptions {
  return {
    message: "add retry logic to fetch client",
    files: ["src/fetch.ts"],
    readFiles: [],
    editFormat: "diff",
    model: "test-model",
    lintCommands: [],
    autoTest: false,
    maxReflections: 3,
    mapTokens: 1024,
    commit: true,
    protectedPaths: [],
    budget: {},
    commandTimeoutMs: 60_000,
    ...overrides,
  };
}

/** The last user message of a recorded request. */
export function lastUser(req: CompletionRequest): string {
  return req.messages.at(-1)?.content ?? "";
}
