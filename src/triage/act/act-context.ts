import type { Logger } from "pino";
import type { GitHubClient } from "../../github/github-client.js";
import type { EventAction } from "../decide-command.js";
import type { AppServices, HandleResult } from "../event-context.js";

/** What every handler of a decision gets: the installation's client, the app's services, its login and a logger. */
export interface ActContext {
  api: GitHubClient;
  services: AppServices;
  botLogin: string;
  /** Tagged with the delivery, repository and thread. */
  log: Logger;
}

/** The handler of one kind of decision. */
export type ActOn<K extends EventAction["kind"]> = (
  action: Extract<EventAction, { kind: K }>,
  ctx: ActContext,
) => Promise<HandleResult>;

/** The thread a decision is about, as the comment helpers name it. */
export const threadOf = (facts: { owner: string; repo: string; number: number }) => ({
  owner: facts.owner,
  repo: facts.repo,
  issueNumber: facts.number,
});
