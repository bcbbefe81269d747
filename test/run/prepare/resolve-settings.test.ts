import { describe, expect, it } from "@jest/globals";
import { parseRepoConfig } from "../../../src/config/repo-config.js";
import { resolveSettings } from "../../../src/run/prepare/resolve-settings.js";
import { runDefaults } from "../../../src/compose/run-settings.js";
import { readRunEnv } from "../../../src/config/env.js";

function config(raw: unknown) {
  const parsed = parseRepoConfig(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

describe("resolveSettings", () => {
  const defaults = { model: "gpt-4o", weakModel: "gpt-4o-mini" };

  it("caches prompts unless the repository (`cache: off`) or the operator (AIDER_BOT_PROMPT_CACHE=off) turns it off", () => {
    const value = (raw: unknown, env: Record<string, string>) => {
      const r = resolveSettings(config(raw), {}, runDefaults(readRunEnv({ ...env })));
      if (!r.ok) throw new Error(r.message);
      return r.value.promptCache;
    };
    expect(value({}, {})).toBeUndefined(); // on
    expect(value({ cache: "auto" }, { AIDER_BOT_PROMPT_CACHE: "auto" })).toBeUndefined();
    expect(value({ cache: "off" }, {})).toBe(false);
    expect(value({}, { AIDER_BOT_PROMPT_CACHE: "off" })).toBe(false);
    expect(() => readRunEnv({ AIDER_BOT_PROMPT_CACHE: "yes" })).toThrow(/AIDER_BOT_PROMPT_CACHE.*auto or off/s);
    expect(parseRepoConfig({ cache: "on" }).ok).toBe(false);
  });

  it("takes an allowed --model and the config's settings", () => {
    const r = resolveSettings(
      config({ allowed_models: ["o3"], timeout: 2 }),
      { model: "o3", editFormat: "whole" },
      defaults,
    );
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({
        model: "o3",
        weakModel: "gpt-4o-mini",
        editFormat: "whole",
        timeoutMs: 120_000,
      }),
    });
  });

  it("refuses a model the config does not allow, naming the allowed ones", () => {
    expect(resolveSettings(config({ allowed_models: ["o3"] }), { model: "evil-model" }, defaults)).toEqual({
      ok: false,
      reason: "model-not-allowed",
      message:
        "Model `evil-model` is not allowed here. Allowed: `gpt-4o`, `o3` (set `allowed_models` in `.github/aider.yml`).",
    });
  });

  it("edit_format architect: two-step runs, the editor's model and format from editor_model / editor_edit_format, else defaults", () => {
    const two = resolveSettings(config({ edit_format: "architect", editor_model: "small" }), {}, { model: "gpt-4o" });
    expect(two.ok && two.value).toMatchObject({
      architect: true,
      model: "gpt-4o",
      editFormat: "diff",
      editorModel: "small",
      editorEditFormat: "diff",
    });
    const whole = resolveSettings(
      config({ edit_format: "architect", editor_edit_format: "whole" }),
      {},
      { model: "gpt-4o" },
    );
    expect(whole.ok && whole.value).toMatchObject({
      architect: true,
      editorModel: "gpt-4o",
      editorEditFormat: "whole",
    });
    const plain = resolveSettings(config({ edit_format: "udiff" }), {}, { model: "gpt-4o" });
    expect(plain.ok && plain.value.architect).toBeUndefined();
    expect(plain.ok && plain.value).toMatchObject({
      editFormat: "udiff",
      editorModel: "gpt-4o",
      editorEditFormat: "udiff",
    });
    expect(parseRepoConfig({ editor_edit_format: "architect" }).ok).toBe(false);
  });
});
