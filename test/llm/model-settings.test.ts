import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { acceptsImages, modelSettings } from "../../src/llm/model-settings.js";
import { DEFAULT_PRICES, findPrice, pricesOf } from "../../src/llm/price-table.js";
import { readModelSettings } from "../../src/llm/read-model-settings.js";

describe("model settings table", () => {
  it("finds a model by name, behind provider prefixes, and by family prefix; unknown models get the generic settings", () => {
    expect(modelSettings("openrouter/anthropic/claude-sonnet-4").settings).toMatchObject({
      contextWindow: 200_000,
      images: true,
      price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(modelSettings("gpt-4o-2024-08-06")).toMatchObject({ known: true, settings: { maxOutput: 16_384 } });
    expect(modelSettings("gpt-4o-mini-2024-07-18").settings.price).toEqual({
      input: 0.15,
      output: 0.6,
      cacheRead: 0.075,
    });
    expect(modelSettings("my-local-model")).toEqual({
      known: false,
      settings: { contextWindow: 128_000, maxOutput: 4_096, editFormat: "diff", images: false },
    });
    expect(acceptsImages("gpt-4o")).toBe(true);
    expect(acceptsImages("deepseek-chat")).toBe(false);
  });

  it("the price table is the settings table's prices", () => {
    expect(findPrice("gpt-4o", DEFAULT_PRICES)).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 });
    expect(Object.keys(DEFAULT_PRICES)).not.toContain("llama");
  });

  it("an operator's YAML file overrides fields and adds models; a bad file is refused with each problem", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "model-settings-"));
    try {
      const good = path.join(dir, "good.yml");
      await writeFile(
        good,
        "gpt-4o:\n  input_price: 2\n  output_price: 8\nmy-claude:\n  input_price: 3\n  output_price: 15\n  cache_read_price: 0.3\n  cache_write_price: 3.75\nmy-local-model:\n  context_window: 32768\n  max_output: 2048\n  edit_format: whole\n  images: false\n",
      );
      const table = await readModelSettings(good);
      expect(modelSettings("gpt-4o", table).settings).toMatchObject({
        contextWindow: 128_000,
        price: { input: 2, output: 8 },
      });
      expect(modelSettings("my-local-model", table)).toMatchObject({
        known: true,
        settings: { contextWindow: 32_768, maxOutput: 2_048, editFormat: "whole" },
      });
      expect(pricesOf(table)["my-local-model"]).toBeUndefined();
      expect(pricesOf(table)["my-claude"]).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
      const bad = path.join(dir, "bad.yml");
      await writeFile(
        bad,
        "gpt-4o:\n  input_price: 2\n  context_window: -1\n  colour: blue\nm2:\n  cache_read_price: 1\n",
      );
      const problem = (await readModelSettings(bad).catch((e: unknown) => e)) as Error;
      expect(problem.message).toMatch(/^AIDER_BOT_MODEL_SETTINGS: .*bad\.yml has problems:\n/);
      expect(problem.message).toContain("- gpt-4o.context_window: Too small");
      expect(problem.message).toContain('- gpt-4o: Unrecognized key: "colour"');
      expect(problem.message).toContain("- gpt-4o: set both input_price and output_price, or neither");
      expect(problem.message).toContain(
        "- m2: cache_read_price and cache_write_price need input_price and output_price",
      );
      await expect(readModelSettings(path.join(dir, "missing.yml"))).rejects.toThrow(
        /AIDER_BOT_MODEL_SETTINGS: cannot read/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
