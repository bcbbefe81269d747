import { deepMerge } from "../../src/app/load-aider-config.js";

describe("deepMerge (Probot's merge of an _extends base and the repository's config)", () => {
  it("merges mappings key by key, the later file winning, and concatenates lists", () => {
    const base = { trigger: { command: "bot", label: "ai" }, checks: { test: ["npm test"] }, plan: true };
    const repo = { trigger: { label: "aider" }, checks: { test: ["make"] }, plan: false };
    expect(deepMerge(deepMerge({}, base), repo)).toEqual({
      trigger: { command: "bot", label: "aider" },
      checks: { test: ["npm test", "make"] },
      plan: false,
    });
  });

  it("copies rather than shares, and lets a scalar replace a mapping", () => {
    const base = { trigger: { command: "bot" } };
    const merged = deepMerge({}, base) as { trigger: { command: string } };
    merged.trigger.command = "changed";
    expect(base.trigger.command).toBe("bot");
    expect(deepMerge({ trigger: { command: "x" } }, { trigger: null })).toEqual({ trigger: null });
  });
});
