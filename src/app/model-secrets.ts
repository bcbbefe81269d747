import type { RunSettings } from "../run/run-request.js";
import { PROVIDER_SECRET_VARIABLES } from "../llm/provider-endpoints.js";
import { providerOf } from "../llm/provider-of.js";

/** Every provider variable that holds a secret: a job process is started without them (see withoutSecrets). */
export const MODEL_SECRET_VARIABLES: readonly string[] = Object.values(PROVIDER_SECRET_VARIABLES).flat();

/**
 * The secret variables a run's model calls need, and only those: the keys of the providers its models (the model,
 * the weak and editor models, the fallbacks) use. A run on `bedrock/…` gets the AWS keys but not the OpenAI key; a
 * run on `gpt-4o` gets the OpenAI key only. Pure.
 */
export function modelSecrets(
  settings: Pick<RunSettings, "model" | "weakModel" | "editorModel" | "fallbackModels">,
  fallbackModels: readonly string[] | undefined,
  source: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const models = [
    settings.model,
    settings.weakModel,
    settings.editorModel,
    ...(settings.fallbackModels ?? fallbackModels ?? []),
  ].filter((m): m is string => Boolean(m));
  const out: Record<string, string> = {};
  for (const provider of new Set(models.map((m) => providerOf(m).provider)))
    for (const name of PROVIDER_SECRET_VARIABLES[provider]) if (source[name]) out[name] = source[name]!;
  return out;
}
