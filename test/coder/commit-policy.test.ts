import { describe, expect, it } from "@jest/globals";
import {
  checksFailingCommit,
  coAuthorTrailer,
  RUN_TRAILER,
  commitSubjectFromRequest,
  normaliseSubject,
  requestedChangeBody,
  runCommitTrailers,
  truncateSubject,
} from "../../src/coder/commit-policy.js";
import { RUN_TRAILER as runTrailerName, runTrailers } from "../../src/run/publish/run-trailers.js";

describe("commitSubjectFromRequest", () => {
  it.each([
    ["add retry logic to fetch client", "feat: add retry logic to fetch client"],
    ["Please add retry logic to fetch client.", "feat: add retry logic to fetch client"],
    ["Can you fix the crash when the config is empty?", "fix: the crash when the config is empty"],
    ["The parser crashes on empty input", "fix: the parser crashes on empty input"],
    ["Refactor the queue into two modules", "refactor: the queue into two modules"],
    ["Rename fetchJson to getJson", "refactor: rename fetchJson to getJson"],
    ["Update the README with install steps", "docs: update the README with install steps"],
    ["Add tests for the parser", "test: add tests for the parser"],
    ["Optimize the tokenizer loop", "perf: optimize the tokenizer loop"],
    ["README typo", "fix: README typo"],
    ["add retry\n\nmore details here", "feat: add retry"],
    ["   ", "chore: apply requested changes"],
  ])("%j → %j", (request, subject) => {
    expect(commitSubjectFromRequest(request)).toBe(subject);
  });

  it("keeps subjects within 72 characters, cut at a word boundary", () => {
    const subject = commitSubjectFromRequest(`add ${"very ".repeat(30)}long feature`);
    expect(subject.length).toBeLessThanOrEqual(72);
    expect(subject).toMatch(/^feat: add very( very)*$/);
  });
});

describe("normaliseSubject / truncateSubject", () => {
  it("takes the first line and removes surrounding quotes", () => {
    expect(normaliseSubject('\n"fix: handle empty body"\nbody')).toBe("fix: handle empty body");
    expect(normaliseSubject("  ")).toBeNull();
  });
  it("cuts a long word-free string hard", () => {
    expect(truncateSubject("x".repeat(100))).toHaveLength(72);
  });
});

describe("the body and trailers of a run's commit", () => {
  it("quotes the trimmed request, cut at 2000 characters with an ellipsis", () => {
    expect(requestedChangeBody("  add retry  \n")).toBe("Requested change:\n\nadd retry");
    expect(requestedChangeBody("y".repeat(2001))).toBe(`Requested change:\n\n${"y".repeat(2000)}…`);
    expect(requestedChangeBody("y".repeat(2000))).toBe(`Requested change:\n\n${"y".repeat(2000)}`);
  });
  it.each([
    [undefined, undefined, []],
    [{ name: "Ann", email: "ann@x" }, undefined, ["Co-authored-by: Ann <ann@x>"]],
    [{ name: "Ann", email: "ann@x" }, ["Aider-Bot-Run: 7"], ["Co-authored-by: Ann <ann@x>", "Aider-Bot-Run: 7"]],
    [undefined, ["Aider-Bot-Run: 7"], ["Aider-Bot-Run: 7"]],
  ])("co-author %j and extra %j → %j", (coAuthor, extra, expected) => {
    expect(runCommitTrailers(coAuthor, extra)).toEqual(expected);
  });
});

describe("checksFailingCommit", () => {
  it("says in the subject that the checks fail, from the first line of the request cut at 60 characters", () => {
    const long = `make ${"z".repeat(80)}`;
    expect(checksFailingCommit(`${long}\nsecond line`, "ann")).toEqual({
      subject: `fix: ${long.slice(0, 60)} (checks failing)`,
      body: `Requested by @ann: ${long}\nsecond line\n\nThe repository's checks still fail on this commit.`,
    });
  });
});

describe("one policy behind every caller", () => {
  it("the job runner's trailers use the policy's co-author and run trailers", () => {
    expect(coAuthorTrailer("ann", "1+ann@users.noreply.github.com")).toBe(
      "Co-authored-by: ann <1+ann@users.noreply.github.com>",
    );
    expect(runTrailerName).toBe(RUN_TRAILER);
    expect(runTrailers("j1", { login: "ann", id: 1 })).toEqual([
      coAuthorTrailer("ann", "1+ann@users.noreply.github.com"),
      `${RUN_TRAILER}: j1`,
    ]);
  });
});
