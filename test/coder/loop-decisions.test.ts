import { describe, expect, it } from "@jest/globals";
import type { CheckReport } from "../../src/checks/types.js";
import {
  afterApply,
  decideNext,
  finalOutcome,
  judgeReply,
  type LoopState,
  type Problem,
  type RoundReport,
} from "../../src/coder/loop-decisions.js";
import { filesAddedText, NO_EDITS_TEXT } from "../../src/coder/prompts/shared-text.js";
import type { EditFailure } from "../../src/edits/types.js";

const failure: EditFailure = { path: "a.ts", reason: "no-match", message: "SEARCH did not match" };
const report: CheckReport = { kind: "test", ok: false, command: "npm test", output: "1 failing", locations: [] };

function state(over: Partial<LoopState> = {}): LoopState {
  return { reflections: 0, maxReflections: 3, problem: null, noEditsReflected: false, edited: new Set(), ...over };
}

describe("afterApply: which finding of an applied reply wins", () => {
  const applied = (over: Partial<Parameters<typeof afterApply>[0]> = {}) => ({
    filesAdded: [] as string[],
    wroteFiles: false,
    failures: [] as EditFailure[],
    reflection: null as string | null,
    ...over,
  });
  it.each<[string, Parameters<typeof afterApply>[0], boolean, RoundReport["kind"] | "run-checks"]>([
    [
      "files asked for win over edit failures",
      applied({ filesAdded: ["b.ts"], failures: [failure], reflection: "r" }),
      true,
      "files-added",
    ],
    [
      "files asked for win over unchecked edits",
      applied({ filesAdded: ["b.ts"], wroteFiles: true }),
      true,
      "files-added",
    ],
    [
      "edit failures win over unchecked edits (no checks on a half-applied reply)",
      applied({ failures: [failure], reflection: "r" }),
      true,
      "edits-failed",
    ],
    ["written files are checked", applied({ wroteFiles: true }), true, "run-checks"],
    ["edits of an earlier round not yet checked are checked", applied(), true, "run-checks"],
    ["nothing written and nothing pending: nothing new", applied(), false, "nothing-new"],
  ])("%s", (_why, input, unchecked, kind) => {
    expect(afterApply(input, unchecked).kind).toBe(kind);
  });

  it("keeps the failures and the engine's reflection for the decision", () => {
    expect(
      afterApply(applied({ filesAdded: ["b.ts"], wroteFiles: true, failures: [failure], reflection: "r" }), false),
    ).toEqual({
      kind: "files-added",
      files: ["b.ts"],
      wroteFiles: true,
      failures: [failure],
      editReflection: "r",
    });
  });
});

describe("decideNext: ask again, with what, and which problem is remembered", () => {
  const checkFailed: RoundReport = { kind: "checks-failed", report, reflection: "fix the test" };
  it.each<[string, LoopState, RoundReport, { next: string | null; problem: Problem | null; reflections: number }]>([
    [
      "a failed check is reflected",
      state(),
      checkFailed,
      { next: "fix the test", problem: { kind: "check", report }, reflections: 1 },
    ],
    [
      "passing checks end the loop clean",
      state({ problem: { kind: "check", report } }),
      { kind: "checks-passed" },
      { next: null, problem: null, reflections: 0 },
    ],
    [
      "failed edits are reflected with the engine's text",
      state(),
      { kind: "edits-failed", failures: [failure], reflection: "SEARCH failed" },
      { next: "SEARCH failed", problem: { kind: "edits", failures: [failure] }, reflections: 1 },
    ],
    [
      "failed edits without a text to send stop the loop",
      state(),
      { kind: "edits-failed", failures: [failure], reflection: null },
      { next: null, problem: { kind: "edits", failures: [failure] }, reflections: 0 },
    ],
    [
      "files asked for are shared, with the edit failures appended",
      state(),
      { kind: "files-added", files: ["b.ts"], wroteFiles: true, failures: [failure], editReflection: "SEARCH failed" },
      {
        next: `${filesAddedText(["b.ts"], true)}\n\nSEARCH failed`,
        problem: { kind: "edits", failures: [failure] },
        reflections: 1,
      },
    ],
    [
      "files asked for without failures are the problem until the model uses them",
      state(),
      { kind: "files-added", files: ["b.ts"], wroteFiles: false, failures: [], editReflection: null },
      { next: filesAddedText(["b.ts"], false), problem: { kind: "files-added", files: ["b.ts"] }, reflections: 1 },
    ],
    [
      "a first answer without edits is told so",
      state(),
      { kind: "nothing-new" },
      { next: NO_EDITS_TEXT, problem: { kind: "no-edits" }, reflections: 1 },
    ],
    [
      "a second answer without edits ends the loop",
      state({ noEditsReflected: true, reflections: 1 }),
      { kind: "nothing-new" },
      { next: null, problem: { kind: "no-edits" }, reflections: 1 },
    ],
    [
      "no edits after a failed check leaves the check failure as the problem",
      state({ problem: { kind: "check", report }, reflections: 1 }),
      { kind: "nothing-new" },
      { next: NO_EDITS_TEXT, problem: { kind: "check", report }, reflections: 2 },
    ],
    [
      "no edits after files were shared becomes a no-edits problem",
      state({ problem: { kind: "files-added", files: ["b.ts"] }, reflections: 1 }),
      { kind: "nothing-new" },
      { next: NO_EDITS_TEXT, problem: { kind: "no-edits" }, reflections: 2 },
    ],
    [
      "reflections exhausted: the failure is kept, nothing sent",
      state({ reflections: 3 }),
      checkFailed,
      { next: null, problem: { kind: "check", report }, reflections: 3 },
    ],
    [
      "no reflections allowed at all",
      state({ maxReflections: 0 }),
      checkFailed,
      { next: null, problem: { kind: "check", report }, reflections: 0 },
    ],
    [
      "the last reflection is still sent",
      state({ reflections: 2 }),
      checkFailed,
      { next: "fix the test", problem: { kind: "check", report }, reflections: 3 },
    ],
  ])("%s", (_why, before, round, expected) => {
    const { state: after, next } = decideNext(before, round);
    expect(next).toEqual(expected.next === null ? { kind: "finish" } : { kind: "ask", message: expected.next });
    expect(after.problem).toEqual(expected.problem);
    expect(after.reflections).toBe(expected.reflections);
  });

  it("remembers that the no-edits text was sent, and does not change the state it was given", () => {
    const before = state();
    const { state: after } = decideNext(before, { kind: "nothing-new" });
    expect(after.noEditsReflected).toBe(true);
    expect(before).toEqual(state());
  });

  it("keeps the fields it does not decide (the run's own state travels through)", () => {
    const before = { ...state(), round: 4, chatFiles: ["a.ts"] };
    expect(decideNext(before, { kind: "checks-passed" }).state).toMatchObject({ round: 4, chatFiles: ["a.ts"] });
  });
});

describe("finalOutcome: how a loop that stopped on its own ends", () => {
  const edited = new Set(["a.ts"]);
  const none = new Set<string>();
  it.each<[string, Pick<LoopState, "problem" | "edited">, ReturnType<typeof finalOutcome>["kind"]]>([
    ["clean with edits: commit", { problem: null, edited }, "commit"],
    ["clean without edits: nothing to commit", { problem: null, edited: none }, "no-changes"],
    [
      "edit failures win even with other edits made",
      { problem: { kind: "edits", failures: [failure] }, edited },
      "edit-failed",
    ],
    [
      "edit failures without any edit",
      { problem: { kind: "edits", failures: [failure] }, edited: none },
      "edit-failed",
    ],
    ["a failing check is reported, not committed", { problem: { kind: "check", report }, edited }, "checks-failed"],
    [
      "no edits in the end: no changes, even with earlier edits",
      { problem: { kind: "no-edits" }, edited },
      "no-changes",
    ],
    [
      "files still wanted after edits: the edits are unfinished",
      { problem: { kind: "files-added", files: ["b.ts", "c.ts"] }, edited },
      "edit-failed",
    ],
    [
      "files still wanted before any edit: an answer only",
      { problem: { kind: "files-added", files: ["b.ts"] }, edited: none },
      "no-changes",
    ],
  ])("%s", (_why, input, kind) => {
    expect(finalOutcome(input).kind).toBe(kind);
  });

  it("names the files the model still wanted", () => {
    expect(finalOutcome({ problem: { kind: "files-added", files: ["b.ts", "c.ts"] }, edited })).toEqual({
      kind: "edit-failed",
      failures: [
        {
          path: "b.ts, c.ts",
          reason: "file-missing",
          message: "The model asked to see b.ts, c.ts but no reflections were left to finish the edits.",
        },
      ],
    });
  });
  it("carries the failures and the report", () => {
    expect(finalOutcome({ problem: { kind: "edits", failures: [failure] }, edited })).toEqual({
      kind: "edit-failed",
      failures: [failure],
    });
    expect(finalOutcome({ problem: { kind: "check", report }, edited })).toEqual({ kind: "checks-failed", report });
  });
});

describe("judgeReply: what a reply calls for before it is applied", () => {
  it.each<[string, Parameters<typeof judgeReply>[0], ReturnType<typeof judgeReply>]>([
    [
      "a cut-off answer wins over everything",
      { truncated: true, budgetProblem: "over", askOnly: true },
      { kind: "truncated" },
    ],
    [
      "a spent budget wins over an ask-only answer",
      { truncated: false, budgetProblem: "over", askOnly: true },
      { kind: "over-budget", message: "over" },
    ],
    ["ask-only ends with the answer", { truncated: false, budgetProblem: null, askOnly: true }, { kind: "answer" }],
    ["otherwise the edits are applied", { truncated: false, budgetProblem: null, askOnly: false }, { kind: "apply" }],
  ])("%s", (_why, input, expected) => {
    expect(judgeReply(input)).toEqual(expected);
  });
});
