import { loadRepoConfig } from "../config/load-repo-config.js";
import type { ConfigResult, Permission } from "../config/repo-config.js";
import type { CommandEvent } from "../edge/bot-event.js";
import { effectiveConfig, permissionNeeded, type BotIdentity, type Gathered } from "./decide-command.js";
import { readRequest } from "./read-request.js";

/** The reads a command's decision needs, as ports (triage-command.ts gives them GitHub and the shared lookups). */
export interface CommandReads {
  /** `.github/aider.yml` from the default branch, parsed YAML (null: none). */
  loadConfig(): Promise<unknown>;
  bot(): Promise<BotIdentity>;
  permissionOf(login: string, where: { owner: string; repo: string }): Promise<Permission | "none">;
}

/**
 * Everything {@link decideCommand} decides on, read in one place: the config (its command word and label say
 * whether the event asks anything), the app's identity, and — only for a person who asked something — their
 * permission. An event that asks nothing costs one config read.
 */
export async function gatherCommand(
  event: CommandEvent,
  reads: CommandReads,
): Promise<Gathered | { kind: "ignore"; reason: string }> {
  const config = await readConfig(reads);
  const request = readRequest(event, effectiveConfig(config).trigger);
  if (request.kind === "ignore") return request;
  const bot = await reads.bot();
  const { facts } = request;
  const permission = permissionNeeded(facts, bot)
    ? await reads.permissionOf(facts.sender.login, { owner: facts.owner, repo: facts.repo })
    : null;
  return { delivery: event.delivery, config, bot, command: request.command, facts, permission };
}

/** The config file as a validated config; a file that cannot be read, or is not even YAML, is a problem too. */
function readConfig(reads: CommandReads): Promise<ConfigResult> {
  return loadRepoConfig(() => reads.loadConfig());
}
