import type { ProbotOctokit } from "probot";
import type { EventRepository } from "../edge/bot-event.js";

/**
 * `.github/aider.yml` of a repository's default branch as Probot's `context.config("aider.yml")` reads it: through
 * the config plugin (so `_extends` works, and a repository without a file falls back to its account's `.github`
 * repository), its files deep-merged over each other; null when no file holds a config.
 */
export async function loadAiderConfig(
  api: InstanceType<typeof ProbotOctokit>,
  repository: Pick<EventRepository, "owner" | "name">,
): Promise<unknown> {
  const { config, files } = await api.config.get({
    owner: repository.owner,
    repo: repository.name,
    path: ".github/aider.yml",
    defaults: (configs) =>
      configs.reduce<Record<string, unknown>>((merged, next) => deepMerge(merged, next) as Record<string, unknown>, {}),
  });
  return files.some((file) => file.config !== null) ? config : null;
}

const isMergeable = (value: unknown): value is Record<string, unknown> | unknown[] =>
  typeof value === "object" && value !== null;

/**
 * Probot's merge of config files (deepmerge's defaults): mappings merged key by key, lists concatenated, anything
 * else replaced by the later file's value.
 */
export function deepMerge(target: unknown, source: unknown): unknown {
  if (!isMergeable(source)) return source;
  if (Array.isArray(source))
    return Array.isArray(target) ? [...target.map(copy), ...source.map(copy)] : source.map(copy);
  if (!isMergeable(target) || Array.isArray(target)) return copy(source);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) out[key] = copy(value);
  for (const [key, value] of Object.entries(source))
    out[key] = key in target && isMergeable(value) ? deepMerge(target[key], value) : copy(value);
  return out;
}

function copy(value: unknown): unknown {
  return isMergeable(value) ? deepMerge(Array.isArray(value) ? [] : {}, value) : value;
}
