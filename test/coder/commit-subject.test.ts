import { describe, expect, it } from "@jest/globals";
import { commitSubjectFromRequest, normaliseSubject, truncateSubject } from "../../src/coder/commit-subject.js";

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
