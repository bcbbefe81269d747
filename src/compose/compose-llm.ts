import type { ProviderEnv } from "../config/env.js";
import { createProviderClient } from "../llm/create-provider-client.js";
import { providerEndpoints } from "../llm/provider-endpoints.js";
import { pricesOf } from "../llm/price-table.js";
import { readModelSettings } from "../llm/read-model-settings.js";
import { routeModels } from "../llm/route-models.js";
import type { SpendGuard } from "../llm/spend-guard.js";
import type { LlmClient } from "../llm/types.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import type { DriverSettings } from "./run-settings.js";

/**
 * A run's model client, the same for every driver: each provider's client (chosen by the model's name) with the model settings table's prices
 * under the operator's (`AIDER_BOT_PRICES`), routed through the fallback models (the run's `fallbackModels`, else
 * none) and, when the driver keeps a spend ledger, its guard.
 */
export async function composeLlm(o: {
  settings: DriverSettings["llm"];
  fallbackModels: readonly string[] | undefined;
  endpoint: { baseUrl: string; apiKey: string | undefined };
  /** The native providers' variables (Anthropic, Bedrock, Vertex, Azure); absent: only the OpenAI-compatible endpoint. */
  providers?: Partial<ProviderEnv>;
  /** The driver's redactor (compose-clients): every message is redacted with it before it is sent. */
  redactor: SecretRedactor;
  guard?: SpendGuard;
  logger?: { warn(obj: object, msg?: string): void };
}): Promise<LlmClient> {
  const table = await readModelSettings(o.settings.modelSettingsFile);
  const prices = { ...pricesOf(table), ...o.settings.prices };
  const client = createProviderClient({
    endpoints: providerEndpoints(o.providers ?? {}, o.endpoint),
    redactor: o.redactor,
    allowPrefill: o.settings.allowPrefill,
    priceTable: prices,
    settings: table,
  });
  return routeModels(client, {
    fallbacks: o.fallbackModels ?? [],
    settings: table,
    prices,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.guard ? { guard: o.guard } : {}),
  });
}
