import { describe, expect, it } from "@jest/globals";
import { extractExplanation, mentionableText } from "../../src/coder/extract-explanation.js";

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

describe("mentionableText: what of an answer can name a file to add", () => {
  const fence = ["```", "```"] as const;
  it("keeps the prose and the path of each block, not the code the blocks carry", () => {
    const whole = 'Include the header.\n\nini.c\n```c\n#include "ini.h"\nint x;\n```\n';
    expect(mentionableText(whole, fence).split("\n")).toEqual(["Include the header.", "", "ini.c", ""]);
    const fencedDiff =
      "```\nsrc/a.ts\n<<<<<<< SEARCH\nsee src/b.ts\n=======\nsee src/c.ts\n>>>>>>> REPLACE\n```\nAlso read docs/x.md.";
    expect(mentionableText(fencedDiff, fence).split("\n")).toEqual(["src/a.ts", "Also read docs/x.md."]);
    const plain = "src/a.ts\n<<<<<<< SEARCH\nimport b from src/b.ts\n=======\nx\n>>>>>>> REPLACE\n";
    expect(mentionableText(plain, fence).split("\n")).toEqual(["src/a.ts", ""]);
  });

  it("keeps a unified diff's file headers and a patch's file lines", () => {
    const udiff = "```diff\n--- src/a.ts\n+++ src/a.ts\n@@ ... @@\n-old src/b.ts\n+new\n```";
    expect(mentionableText(udiff, fence).split("\n")).toEqual(["--- src/a.ts", "+++ src/a.ts"]);
    const patch =
      "*** Begin Patch\n*** Update File: src/a.ts\n@@\n- see src/b.ts\n+ x\n*** Add File: src/n.ts\n+ y\n*** End Patch";
    expect(mentionableText(patch, fence).split("\n")).toEqual(["*** Update File: src/a.ts", "*** Add File: src/n.ts"]);
  });
});
