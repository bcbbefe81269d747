import fc from "fast-check";
import { stripReasoning } from "../../src/llm/strip-reasoning.js";

describe("stripReasoning", () => {
  it.each([
    ["<think>plan</think>\nAnswer.", "Answer."],
    ["<THINKING>\nstep 1\nstep 2\n</THINKING>\n\nAnswer.", "Answer."],
    ["<reasoning>a</reasoning><think>b</think> Answer.", "Answer."],
    ["  \n<think>never closed, cut off mid-thought", ""],
    ["the template opened it\n</think>\nAnswer.", "Answer."],
    ["Intro.\n<think>\nreconsider\n</think>\nAnswer.", "Intro.\nAnswer."],
  ])("%j → %j", (input, expected) => {
    expect(stripReasoning(input)).toBe(expected);
  });

  it.each([
    // File contents inside a fence are edits, not reasoning.
    "a.xml\n```\n<<<<<<< SEARCH\n<think>old</think>\n=======\n<think>new</think>\n>>>>>>> REPLACE\n```",
    // A closing tag after the answer began belongs to the answer.
    "```\n</think>\n```",
    // Indented (a patch context line) or mid-line tags are not sections.
    "*** Begin Patch\n <think>\n+x\n </think>\n*** End Patch",
    "Use a <think> tag and close it with </think>.",
  ])("keeps tags that are part of the answer: %j", (input) => {
    expect(stripReasoning(input)).toBe(input);
  });

  it("returns text without tags unchanged", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("<")),
        (s) => stripReasoning(s) === s,
      ),
    );
  });
});
