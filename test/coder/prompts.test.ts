import { describe, expect, it } from "@jest/globals";
import { getPrompts, type PromptMode } from "../../src/coder/prompts/get-prompts.js";
import type { Fence } from "../../src/edits/types.js";

const modes: PromptMode[] = ["diff", "diff-fenced", "whole", "udiff", "patch"];
const backticks: Fence = ["```", "```"];

describe("format prompts", () => {
  it.each(modes)("%s: edits only, no tool calls or shell edits, examples end with the assistant", (mode) => {
    const prompts = getPrompts(mode);
    const system = prompts.system(backticks);
    expect(system).toMatch(/conventions/);
    expect(system).toMatch(/never propose shell commands/);
    expect(system).toMatch(/Do not call tools/);
    const examples = prompts.examples(backticks);
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.at(-1)?.role).toBe("assistant");
    expect(prompts.reminder(backticks).length).toBeGreaterThan(50);
  });

  it.each([
    ["diff", ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"]],
    ["diff-fenced", ["<<<<<<< SEARCH", ">>>>>>> REPLACE"]],
    ["udiff", ["--- src/config.ts", "+++ src/config.ts", "@@ @@"]],
    ["patch", ["*** Begin Patch", "*** Update File: src/cache.ts", "*** Add File: CHANGELOG.md", "*** End Patch"]],
    ["whole", ["src/greet.ts\n```typescript\n"]],
  ] as const)("%s examples use the exact format markers", (mode, markers) => {
    const text = getPrompts(mode)
      .examples(backticks)
      .map((m) => m.content)
      .join("\n");
    for (const marker of markers) expect(text).toContain(marker);
  });

  it("places the path before the fence for diff and inside it for diff-fenced", () => {
    const diff = getPrompts("diff").examples(backticks)[1]!.content;
    const fenced = getPrompts("diff-fenced").examples(backticks)[1]!.content;
    expect(diff).toContain("src/format/price.ts\n```typescript\n<<<<<<< SEARCH");
    expect(fenced).toContain("```typescript\nsrc/format/price.ts\n<<<<<<< SEARCH");
  });

  it("the diff reminder states uniqueness, empty SEARCH for new files and two blocks to move code", () => {
    const reminder = getPrompts("diff").reminder(backticks);
    expect(reminder).toMatch(/UNIQUE/);
    expect(reminder).toMatch(/empty SEARCH/);
    expect(reminder).toMatch(/move code, use two blocks/);
    expect(reminder).toMatch(/alone on its line/);
  });

  it("uses a non-backtick fence throughout when one is chosen", () => {
    const fence: Fence = ["<source>", "</source>"];
    const text = getPrompts("diff")
      .examples(fence)
      .map((m) => m.content)
      .join("\n");
    expect(text).toContain("src/slugify.ts\n<source>\n<<<<<<< SEARCH");
    expect(text).not.toContain("```");
    expect(getPrompts("whole").reminder(fence)).toContain("</source>");
  });

  it("empty-SEARCH example blocks have nothing between the markers", () => {
    const text = getPrompts("diff")
      .examples(backticks)
      .map((m) => m.content)
      .join("\n");
    expect(text).toContain("src/slugify.ts\n```typescript\n<<<<<<< SEARCH\n=======\nexport function slugify");
  });
});
