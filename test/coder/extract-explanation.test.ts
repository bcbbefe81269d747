import { describe, expect, it } from "@jest/globals";
import { extractExplanation } from "../../src/coder/extract-explanation.js";

const fence = ["```", "```"] as const;

describe("extractExplanation", () => {
  it("keeps prose and drops SEARCH/REPLACE blocks with their path lines", () => {
    const text =
      "I will add a retry.\n\nsrc/a.ts\n```ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\nThat is all.";
    expect(extractExplanation(text, fence)).toBe("I will add a retry.\n\nThat is all.");
  });

  it("drops unfenced SEARCH/REPLACE blocks and V4A patches", () => {
    const text =
      "First.\nsrc/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nMiddle.\n*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\nLast.";
    expect(extractExplanation(text, fence)).toBe("First.\nMiddle.\nLast.");
  });

  it("keeps a prose line before a fence when it is not a path", () => {
    expect(extractExplanation("Here is the change:\n```diff\n-a\n+b\n```", fence)).toBe("Here is the change:");
  });

  it("understands non-backtick fences", () => {
    expect(extractExplanation("Done.\na.md\n<source>\n```\n</source>", ["<source>", "</source>"])).toBe("Done.");
  });
});
