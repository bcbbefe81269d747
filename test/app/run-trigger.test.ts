import { runTrigger } from "../../src/app/run-trigger.js";
import type { RunJobData } from "../../src/run/run-job-data.js";

const ctx = (req: Partial<RunJobData["req"]>): RunJobData =>
  ({ req: { target: { kind: "issue", number: 1, title: "t" }, ...req } }) as unknown as RunJobData;

describe("runTrigger", () => {
  it.each([
    ["a schedule's job", "schedule" as const, ctx({}), "schedule"],
    [
      "the CI autofix",
      "run" as const,
      ctx({ context: { mode: { kind: "fix-ci", extra: "", autofix: { round: 1, maxRounds: 3, sha: "a" } } } as never }),
      "ci",
    ],
    [
      "/aider fix-ci typed by someone",
      "run" as const,
      ctx({ context: { mode: { kind: "fix-ci", extra: "" } } as never, triggerCommentId: 5 }),
      "comment",
    ],
    [
      "a review comment",
      "run" as const,
      ctx({ target: { kind: "review-comment" } as never, triggerCommentId: 5 }),
      "review",
    ],
    ["a command comment", "ask" as const, ctx({ triggerCommentId: 9 }), "comment"],
    ["a label", "run" as const, ctx({}), "label"],
  ])("%s", (_what, kind, job, expected) => {
    expect(runTrigger(kind, job)).toBe(expected);
  });
});
