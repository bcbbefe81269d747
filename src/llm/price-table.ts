/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Published list prices of common models; users extend or override them with their own table. */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "claude-3-5-sonnet": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "deepseek-chat": { input: 0.27, output: 1.1 },
};

/** Cost of a call in USD, or null when the model has no known price. Tries the name, then without `provider/`. */
export function costUsd(
  model: string,
  usage: { prompt: number; completion: number },
  table: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES,
): number | null {
  const price = table[model] ?? table[model.replace(/^[^/]+\//, "")];
  if (!price) return null;
  return (usage.prompt * price.input + usage.completion * price.output) / 1_000_000;
}
