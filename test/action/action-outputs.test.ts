import {
  actionOutputs,
  escapeCommandData,
  formatOutputFile,
  renderSummary,
  type ActionResult,
} from "../../src/action/action-outputs.js";
import type { CoderResult } from "../../src/coder/types.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { branchTarget, prTarget, runRequest, runSettings } from "../../testkit/builders/run-fixtures.js";

const request = (number: number | "branch"): RunRequest =>
  runRequest({
    repo: "widgets",
    target: number === "branch" ? branchTarget({ headRef: "calc" }) : prTarget({ number, headRef: "calc" }),
    settings: runSettings({ model: "gpt-4o" }),
  });
const coder = (costUsd: number | null): CoderResult => ({
  outcome: "changed",
  editedFiles: [],
  commit: { sha: "b".repeat(40), subject: "s" },
  reflections: 0,
  tokens: { prompt: 1000, completion: 234 },
  costUsd,
  explanation: "",
  shell: [],
  elapsedMs: 1,
});

/** Parse `$GITHUB_OUTPUT` text as the runner does. */
function parse(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([\w-]+)<<(.+)\n([\s\S]*?)\n\2\n/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

describe("action outputs", () => {
  it("a push: sha, the PR it went to, tokens and cost", () => {
    const result: ActionResult = {
      outcome: "pushed",
      runs: [
        {
          request: request(7),
          outcome: { kind: "pushed", result: coder(0.0123456789), sha: "c".repeat(40), url: "u", elapsedMs: 1 },
          finalBody: "🚀",
        },
      ],
    };
    expect(actionOutputs(result)).toEqual({
      outcome: "pushed",
      "commit-sha": "c".repeat(40),
      "pr-number": "7",
      tokens: "1234",
      cost: "0.012346",
    });
  });

  it("a new PR: its number; an unknown price leaves cost empty; a branch push without a PR has no number", () => {
    const pr: ActionResult = {
      outcome: "pull-request",
      runs: [
        {
          request: request(3),
          outcome: {
            kind: "pull-request",
            result: coder(null),
            sha: "d".repeat(40),
            pr: { number: 12, url: "u" },
            branch: "aider/x",
            elapsedMs: 1,
          },
          finalBody: "",
        },
      ],
    };
    expect(actionOutputs(pr)).toMatchObject({ "pr-number": "12", cost: "" });
    const branchOnly: ActionResult = {
      outcome: "pushed",
      runs: [
        {
          request: request("branch"),
          outcome: { kind: "pushed", result: coder(null), sha: "e".repeat(40), url: "u", elapsedMs: 1 },
          finalBody: "",
        },
      ],
    };
    expect(actionOutputs(branchOnly)["pr-number"]).toBe("");
  });

  it("no run: only the outcome", () => {
    expect(actionOutputs({ outcome: "unauthorized", reason: "x", runs: [] })).toEqual({
      outcome: "unauthorized",
      "commit-sha": "",
      "pr-number": "",
      tokens: "",
      cost: "",
    });
  });

  it("writes multi-line values safely: a value cannot end its block early and set another output", () => {
    const hostile = "line one\nEOF\ncommit-sha<<EOF\nforged\nEOF";
    const text = formatOutputFile({ outcome: hostile, "commit-sha": "abc" });
    expect(parse(text)).toEqual({ outcome: hostile, "commit-sha": "abc" });
    expect(() => formatOutputFile({ outcome: "x ghadelimiter_1 y" }, "ghadelimiter_1")).toThrow(/delimiter/);
  });

  it("the summary shows each run's final status, or why nothing ran", () => {
    const ran: ActionResult = {
      outcome: "pushed",
      runs: [
        {
          request: request(7),
          outcome: { kind: "pushed", result: coder(null), sha: "c".repeat(40), url: "u", elapsedMs: 1 },
          finalBody: "🚀 Pushed it",
        },
      ],
    };
    expect(renderSummary(ran)).toContain("### pushed on #7\n\n🚀 Pushed it");
    expect(renderSummary(ran)).toContain("🚀 Pushed it");
    expect(renderSummary({ outcome: "refused", reason: "No open pull request", runs: [] })).toContain(
      "No run: **refused** — No open pull request",
    );
  });

  it("escapes workflow command data", () => {
    expect(escapeCommandData("50% done\r\nnext")).toBe("50%25 done%0D%0Anext");
  });
});
