import type { Logger } from "pino";
import type { RepoGitHub } from "../../github/repo-github.js";
import type { EventAction } from "../decide-command.js";
import type { AppServices, HandleResult } from "../triage-services.js";

/**
 * What every handler of a decision gets: the gateway of the event's repository (bound once, where the event's
 * repository is known), the app's services, its login and a logger.
 */
export interface ActDeps {
  github: RepoGitHub;
  services: AppServices;
  botLogin: string;
  /** Tagged with the delivery, repository and thread. */
  log: Logger;
}

/** The handler of one kind of decision. */
export type ActOn<K extends EventAction["kind"]> = (
  action: Extract<EventAction, { kind: K }>,
  ctx: ActDeps,
) => Promise<HandleResult>;

/** The thread a decision is about, as the gateway's comment methods name it. */
export const threadOf = (facts: { number: number }) => ({ issueNumber: facts.number });
