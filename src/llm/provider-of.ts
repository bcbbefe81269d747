/** The protocols a model can be reached with; `openai` is any OpenAI-compatible endpoint (OPENAI_BASE_URL). */
export type Provider = "openai" | "anthropic" | "bedrock" | "vertex" | "azure";

export interface ProviderModel {
  provider: Provider;
  /** The model as that provider names it: a Bedrock model id or inference profile, an Azure deployment… */
  model: string;
}

const NATIVE: readonly Provider[] = ["anthropic", "bedrock", "vertex", "azure"];

/**
 * Which provider a model name asks for, as Aider and LiteLLM users write them: `anthropic/claude-sonnet-4-5`,
 * `bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0`, `vertex/claude-sonnet-4-5@20250929`, `azure/<deployment>`.
 * `openai/<model>` and every other name go to the OpenAI-compatible endpoint — `openai/` is dropped, the rest is sent
 * as written (so `openai/anthropic/claude-sonnet-4.5` reaches OpenRouter's model of that name). Pure.
 *
 * @example providerOf("bedrock/anthropic.claude-3-5-haiku-20241022-v1:0") // { provider: "bedrock", model: "anthropic.claude-3-5-haiku-20241022-v1:0" }
 */
export function providerOf(name: string): ProviderModel {
  const slash = name.indexOf("/");
  const prefix = slash > 0 ? name.slice(0, slash) : "";
  const rest = name.slice(slash + 1);
  if ((NATIVE as readonly string[]).includes(prefix) && rest) return { provider: prefix as Provider, model: rest };
  if (prefix === "openai" && rest) return { provider: "openai", model: rest };
  return { provider: "openai", model: name };
}

/**
 * The Claude model a provider's id stands for, for the model settings table (output limit, prices):
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and `claude-sonnet-4-5@20250929` → `claude-sonnet-4-5-…`. An
 * inference-profile ARN keeps its last path segment. Other names are returned as they are. Pure.
 */
export function claudeModelName(model: string): string {
  let name = model.slice(model.lastIndexOf("/") + 1);
  // Bedrock: optional cross-region prefix (us., eu., apac., global.), the vendor, a `-v1:0` version suffix.
  name = name.replace(/^(?:[a-z]{2,6}\.)?anthropic\./, "").replace(/-v\d+(?::\d+)?$/, "");
  // Vertex: `@<date>` versions.
  name = name.replace(/@(\d{8})$/, "-$1").replace(/@.*$/, "");
  return name;
}

/**
 * The names a model's settings and price are looked up by, in order: the name as written, then without its
 * `provider/` prefixes one by one, then — for a Claude model named the way a cloud names it (a Bedrock id or
 * inference profile, a Vertex `@date` version) — the Anthropic model it stands for, and that model's undated alias
 * (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`), so a Bedrock or Vertex id is estimated and priced as its
 * model. An operator's entry under the exact id still comes first. Pure.
 *
 * @example lookupNames("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0") // [..., "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]
 */
export function lookupNames(model: string): string[] {
  const names = [model];
  for (let slash = model.indexOf("/"); slash >= 0; slash = model.indexOf("/", slash + 1))
    names.push(model.slice(slash + 1));
  const claude = claudeModelName(model);
  if (/^claude-/.test(claude))
    for (const name of [claude, claude.replace(/-\d{8}$/, "")]) if (!names.includes(name)) names.push(name);
  return names;
}
