import { createLlmClient } from "../llm/create-llm-client.js";
import { pricesOf } from "../llm/price-table.js";
import { readModelSettings } from "../llm/read-model-settings.js";
import { routeModels } from "../llm/route-models.js";
import type { SpendGuard } from "../llm/spend-guard.js";
import type { LlmClient } from "../llm/types.js";
import type { DriverSettings } from "./run-settings.js";

/**
 * A run's model client, the same for every driver: the endpoint's client with the model settings table's prices
 * under the operator's (`AIDER_BOT_PRICES`), routed through the fallback models (the run's `fallbackModels`, else
 * none) and, when the driver keeps a spend ledger, its guard.
 */
export async function composeLlm(o: {
  settings: DriverSettings["llm"];
  fallbackModels: readonly string[] | undefined;
  endpoint: { baseUrl: string; apiKey: string | undefined };
  guard?: SpendGuard;
  logger?: { warn(obj: object, msg?: string): void };
}): Promise<LlmClient> {
  const table = await readModelSettings(o.settings.modelSettingsFile);
  const prices = { ...pricesOf(table), ...o.settings.prices };
  const client = createLlmClient({
    baseUrl: o.endpoint.baseUrl,
    apiKey: o.endpoint.apiKey ?? "not-needed",
    allowPrefill: o.settings.allowPrefill,
    priceTable: prices,
  });
  return routeModels(client, {
    fallbacks: o.fallbackModels ?? [],
    settings: table,
    prices,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.guard ? { guard: o.guard } : {}),
  });
}
