import type { CommandEvent } from "../edge/bot-event.js";
import { RepoGitHub } from "../github/repo-github.js";
import { actOnCommand } from "./act/act-on-command.js";
import { decideCommand } from "./decide-command.js";
import { shared, type AppServices, type HandleResult, type TriageIo } from "./triage-services.js";
import { gatherCommand } from "./gather-command.js";
import { startEarlyReads, withEarlyReads } from "./early-reads.js";

/**
 * A command, a plan's ticked approve box or the trigger label: gather (config, the app's identity, the sender's
 * permission) → decide (pure) → act (one handler per decision). Replies are idempotent by marker; a request gets 👀,
 * its "queued" status comment and a run job. A comment without a command costs one config read.
 */
export async function triageCommand(event: CommandEvent, io: TriageIo, services: AppServices): Promise<HandleResult> {
  const { repository } = event;
  const permissionOf = (username: string, where: { owner: string; repo: string }) =>
    shared(services, `permission:${where.owner}/${where.repo}:${username}`, () =>
      RepoGitHub.create({ octokit: io.api, ...where }).permissionOf(username),
    );
  const here = { owner: repository.owner, repo: repository.name };
  // What a run request will read next is read beside the config (see early-reads).
  const early = startEarlyReads(event, {
    permissionOf: (username) => permissionOf(username, here),
    pullRequest: (number) => RepoGitHub.create({ octokit: io.api, ...here }).getPullRequest(number),
    comments: (number) => RepoGitHub.create({ octokit: io.api, ...here }).listComments(number),
  });
  const gathered = await gatherCommand(event, {
    loadConfig: () => shared(services, `config:${repository.fullName}`, io.loadConfig),
    bot: async () => ({ login: await services.botLogin(), appId: await services.botAppId?.() }),
    permissionOf: (username, where) =>
      (sameRepository(where, here) ? early.permission(username) : null) ?? permissionOf(username, where),
  });
  if ("kind" in gathered) return { kind: "ignored", reason: gathered.reason };
  const action = decideCommand(gathered);
  if (action.kind === "ignore") return { kind: "ignored", reason: action.reason };
  const { facts } = action;
  const log = io.log.child({ delivery: event.delivery, repo: `${facts.owner}/${facts.repo}`, number: facts.number });
  // The gateway is bound once, here, to the repository the decision is about; every handler works through it.
  const bound = RepoGitHub.create({ octokit: io.api, owner: facts.owner, repo: facts.repo });
  const github = sameRepository(facts, here) ? withEarlyReads(bound, early) : bound;
  return actOnCommand(action, { github, services, botLogin: gathered.bot.login, log });
}

/** GitHub's owner and repository names are case-insensitive. */
function sameRepository(a: { owner: string; repo: string }, b: { owner: string; repo: string }): boolean {
  return a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase();
}
