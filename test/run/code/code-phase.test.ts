import type { CoderOptions, CoderResult } from "../../../src/coder/types.js";
import { createTranscriptRecorder } from "../../../src/coder/transcript/transcript-recorder.js";
import { coderOptions, runCodePhase } from "../../../src/run/code/code-phase.js";
import type { RunRequest } from "../../../src/run/run-request.js";
import { changedResult, runRequest, runSettings } from "../../../testkit/builders/run-fixtures.js";

const plan = "Files: `a.ts`, `b.ts`\n\n1. In `a.ts`, add x.\n2. In `b.ts`, use x.\n3. Run the tests.";
const options = {
  message: "add x",
  untrustedContext: [{ label: "issue", text: "body" }],
  files: ["a.ts"],
  readFiles: [],
  editFormat: "diff",
  model: "main",
  lintCommands: [],
  autoTest: false,
  maxReflections: 3,
  mapTokens: 1024,
  commit: true,
  protectedPaths: [],
  budget: {},
  commandTimeoutMs: 1000,
} satisfies CoderOptions;
const answer = (text: string): CoderResult => ({
  outcome: "no-changes",
  answer: text,
  reflections: 0,
  tokens: { prompt: 10, completion: 2 },
  costUsd: 0.5,
  explanation: "",
  shell: [],
  elapsedMs: 5,
});
const req = (over: Partial<RunRequest>): RunRequest =>
  ({
    jobId: "j",
    verb: "run",
    settings: runSettings({ editorModel: "editor", editorEditFormat: "whole" }),
    ...over,
  }) as RunRequest;

function harness(results: CoderResult[]) {
  const calls: { options: CoderOptions; phase?: string }[] = [];
  const transcript = createTranscriptRecorder();
  const run = async (o: CoderOptions, sink: (e: never) => void) => {
    calls.push({ options: o });
    sink({
      kind: "edits",
      round: 1,
      written: calls.length === 1 ? ["a.ts"] : [],
      deleted: [],
      failures: [],
      reflection: null,
    } as never);
    return results.shift()!;
  };
  return { calls, transcript, run };
}

describe("runCodePhase", () => {
  it("edit_format architect: the main model plans (no edits), then the editor model edits from the plan without a map", async () => {
    const h = harness([answer(plan), changedResult({ tokens: { prompt: 1, completion: 1 }, costUsd: 0.25 })]);
    const result = await runCodePhase({
      req: req({ settings: runSettings({ architect: true, editorModel: "editor", editorEditFormat: "whole" }) }),
      options,
      run: h.run,
      transcript: h.transcript,
      onError: () => {},
    });
    expect(
      h.calls.map((c) => [
        c.options.model,
        c.options.askOnly,
        c.options.architect,
        c.options.editFormat,
        c.options.mapTokens,
      ]),
    ).toEqual([
      ["main", true, true, "diff", 1024],
      ["editor", false, undefined, "whole", 0],
    ]);
    expect(h.calls[1]!.options.message).toBe(plan);
    expect(h.calls[1]!.options.untrustedContext).toBeUndefined();
    expect(result).toMatchObject({ outcome: "changed", tokens: { prompt: 11, completion: 3 }, costUsd: 0.75 });
    expect(h.transcript.events().map((e) => e.phase)).toEqual(["architect", "editor"]);
  });

  it("edit_format architect: a plan that failed ends the run there", async () => {
    const failed: CoderResult = { ...answer(""), outcome: "llm-error", errorKind: "auth", message: "no key" };
    const h = harness([failed]);
    const result = await runCodePhase({
      req: req({ settings: runSettings({ architect: true }) }),
      options,
      run: h.run,
      transcript: h.transcript,
      onError: () => {},
    });
    expect(result).toBe(failed);
    expect(h.calls).toHaveLength(1);
  });

  it("an approved plan: the editor gets the plan and the corrections, and the plan comment is ticked as files are edited, all on success", async () => {
    const h = harness([changedResult()]);
    const ticks: number[][] = [];
    await runCodePhase({
      req: req({ plan: { id: "p", commentId: 9, sha: "s", text: plan, corrections: "name it y" } }),
      options,
      run: h.run,
      transcript: h.transcript,
      tick: async (done) => void ticks.push(done),
      onError: () => {},
    });
    expect(h.calls[0]!.options.message).toContain("1. In `a.ts`, add x.");
    expect(h.calls[0]!.options.message).toContain("name it y");
    expect(h.calls[0]!.options.model).toBe("editor");
    expect(ticks).toEqual([[0], [0, 1, 2]]);
  });

  it("an approved plan whose run failed keeps only the steps whose files were edited", async () => {
    const h = harness([{ ...answer(""), outcome: "edit-failed", failures: [], editedFiles: [] }]);
    const ticks: number[][] = [];
    await runCodePhase({
      req: req({ plan: { id: "p", commentId: 9, sha: "s", text: plan } }),
      options,
      run: h.run,
      transcript: h.transcript,
      tick: async (done) => void ticks.push(done),
      onError: () => {},
    });
    expect(ticks).toEqual([[0]]);
  });

  it("a plain run is one coder run with the options as asked", async () => {
    const h = harness([changedResult()]);
    await runCodePhase({ req: req({}), options, run: h.run, transcript: h.transcript, onError: () => {} });
    expect(h.calls).toEqual([{ options }]);
    expect(h.transcript.events()[0]!.phase).toBeUndefined();
  });

  it("one prompt-cache key per repository, so a later run can read what an earlier one cached; the name does not leave", () => {
    const key = (owner: string, repo: string) =>
      coderOptions(runRequest({ owner, repo, jobId: `${owner}-${Math.random()}` }), null, null).cacheKey;
    expect(key("acme", "web")).toBe(key("acme", "web"));
    expect(key("acme", "web")).not.toBe(key("acme", "api"));
    expect(key("acme", "web")).toMatch(/^aider-bot-[0-9a-f]{16}$/);
  });
});
