import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { z } from "zod";
import { mergeModelSettings, type ModelSettings, type ModelSettingsTable } from "./model-settings.js";

const entrySchema = z
  .object({
    context_window: z.number().int().positive().optional(),
    max_output: z.number().int().positive().optional(),
    edit_format: z.string().min(1).optional(),
    images: z.boolean().optional(),
    /** USD per million prompt tokens. */
    input_price: z.number().min(0).optional(),
    /** USD per million completion tokens. */
    output_price: z.number().min(0).optional(),
    /** USD per million prompt tokens read from the provider's prompt cache (default: input_price). */
    cache_read_price: z.number().min(0).optional(),
    /** USD per million prompt tokens written to the prompt cache (default: input_price). */
    cache_write_price: z.number().min(0).optional(),
  })
  .strict()
  .refine(
    (e) => (e.input_price === undefined) === (e.output_price === undefined),
    "set both input_price and output_price, or neither",
  )
  .refine(
    (e) => e.input_price !== undefined || (e.cache_read_price === undefined && e.cache_write_price === undefined),
    "cache_read_price and cache_write_price need input_price and output_price",
  );

const fileSchema = z.record(z.string().min(1), entrySchema);

/**
 * The operator's model settings (`AIDER_BOT_MODEL_SETTINGS`, YAML: model name or family prefix → fields) merged over
 * the built-in table. Throws with the file and each bad key, so the app refuses to start on a broken file.
 *
 * @example
 * my-local-model: { context_window: 32768, max_output: 4096, edit_format: whole, images: false, input_price: 0, output_price: 0 }
 * my-claude: { input_price: 3, output_price: 15, cache_read_price: 0.3, cache_write_price: 3.75 }
 */
export async function readModelSettings(file: string | undefined): Promise<ModelSettingsTable> {
  if (!file) return mergeModelSettings();
  let raw: unknown;
  try {
    raw = parse(await readFile(file, "utf8")) ?? {};
  } catch (error) {
    throw new Error(
      `AIDER_BOT_MODEL_SETTINGS: cannot read ${file} as YAML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const result = fileSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`);
    throw new Error(`AIDER_BOT_MODEL_SETTINGS: ${file} has problems:\n- ${problems.join("\n- ")}`);
  }
  const table: Record<string, Partial<ModelSettings>> = {};
  for (const [name, e] of Object.entries(result.data)) {
    table[name] = {
      ...(e.context_window !== undefined ? { contextWindow: e.context_window } : {}),
      ...(e.max_output !== undefined ? { maxOutput: e.max_output } : {}),
      ...(e.edit_format !== undefined ? { editFormat: e.edit_format } : {}),
      ...(e.images !== undefined ? { images: e.images } : {}),
      ...(e.input_price !== undefined && e.output_price !== undefined
        ? {
            price: {
              input: e.input_price,
              output: e.output_price,
              ...(e.cache_read_price !== undefined ? { cacheRead: e.cache_read_price } : {}),
              ...(e.cache_write_price !== undefined ? { cacheWrite: e.cache_write_price } : {}),
            },
          }
        : {}),
    };
  }
  return mergeModelSettings(table);
}
