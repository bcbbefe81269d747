import { parseRepoConfig } from "../../src/config/repo-config.js";
import { resolveSettings } from "../../src/run/prepare/resolve-settings.js";

describe(".github/aider.yml: instructions, read, vision, context.instructions", () => {
  it("defaults: instruction files on, no read: files, 4,000 tokens, the model table decides vision", () => {
    const r = parseRepoConfig(null);
    if (!r.ok) throw new Error("invalid");
    expect(r.config).toMatchObject({ instructions: true, read: [] });
    expect(r.config.vision).toBeUndefined();
    expect(r.config.context.instructions).toBe(4000);
    expect(resolveSettings(r.config, {}, { model: "gpt-4o" })).toMatchObject({
      ok: true,
      value: { instructions: { auto: true, read: [], maxTokens: 4000 } },
    });
  });

  it("set values reach the run's settings", () => {
    const r = parseRepoConfig({
      instructions: false,
      read: ["docs/style.md"],
      vision: true,
      context: { instructions: 800 },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const s = resolveSettings(r.config, {}, { model: "local" });
    expect(s).toMatchObject({
      ok: true,
      value: { instructions: { auto: false, read: ["docs/style.md"], maxTokens: 800 }, vision: true },
    });
    // The PR context's own budget is untouched by the new key.
    expect(r.config.context.max_tokens).toBe(12_000);
  });

  it("bad values are problems with their key path", () => {
    const r = parseRepoConfig({ instructions: "yes", read: "AGENTS.md", vision: 1, context: { instructions: -1 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.path).sort()).toEqual(["context.instructions", "instructions", "read", "vision"]);
  });
});
