import { describe, expect, it } from "@jest/globals";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { resolveSettings } from "../../src/run/resolve-settings.js";

function config(raw: unknown) {
  const parsed = parseRepoConfig(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

describe("resolveSettings", () => {
  const defaults = { model: "gpt-4o", weakModel: "gpt-4o-mini" };

  it("takes an allowed --model and the config's settings", () => {
    const r = resolveSettings(config({ allowed_models: ["o3"], timeout: 2 }), { model: "o3", editFormat: "whole" }, defaults);
    expect(r).toEqual({ ok: true, value: expect.objectContaining({ model: "o3", weakModel: "gpt-4o-mini", editFormat: "whole", timeoutMs: 120_000 }) });
  });

  it("refuses a model the config does not allow, naming the allowed ones", () => {
    expect(resolveSettings(config({ allowed_models: ["o3"] }), { model: "evil-model" }, defaults)).toEqual({
      ok: false,
      reason: "model-not-allowed",
      message: "Model `evil-model` is not allowed here. Allowed: `gpt-4o`, `o3` (set `allowed_models` in `.github/aider.yml`).",
    });
  });
});
