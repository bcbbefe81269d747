import type { AnyCommand } from "../commands/parse-command.js";
import type { Permission } from "../config/repo-config.js";
import type { CommandEvent } from "../edge/bot-event.js";
import type { RepoGitHub } from "../github/repo-github.js";
import { DEFAULT_TRIGGER } from "./decide-command.js";
import { readRequest } from "./read-request.js";

/** A pull request as the gateway reads it. */
type PullRequestData = Awaited<ReturnType<RepoGitHub["getPullRequest"]>>;

/** Verbs whose decision starts a run on the pull request, and so reads it (build-run-request's target). */
const RUN_VERBS: ReadonlySet<AnyCommand["verb"]> = new Set([
  "run",
  "ask",
  "retry",
  "plan",
  "approve",
  "undo",
  "address-reviews",
  "fix-ci",
]);

/** How the early reads are made: the same reads triage makes anyway, shared where triage shares them. */
export interface EarlyReadPorts {
  permissionOf(login: string): Promise<Permission | "none">;
  pullRequest(number: number): Promise<PullRequestData>;
}

/** Reads started as the event arrived; each is handed out once, to the read it stands in for. */
export interface EarlyReads {
  /** The sender's permission, when it was started for `login`. */
  permission(login: string): Promise<Permission | "none"> | null;
  /** The pull request `number`, when it was started for it (once: a later read asks GitHub again). */
  pullRequest(number: number): Promise<PullRequestData> | null;
}

/**
 * The sender's permission and the pull request, read beside the config rather than after it, when the event asks
 * for a run under the default command word. Triage reads the config first (its command word says whether the event
 * asks anything), then the permission, then the pull request: three GitHub round trips one after another before 👀,
 * the "queued" comment and the run's start; now they overlap. The cost: where the config changes the command word or
 * the event turns out to ask nothing, one or two reads are made for nothing. A failed early read fails only the
 * decision that uses it, as the read it stands in for would have.
 */
export function startEarlyReads(event: CommandEvent, ports: EarlyReadPorts): EarlyReads {
  const guess = readRequest(event, DEFAULT_TRIGGER);
  if (guess.kind !== "command" || guess.facts.sender.type === "Bot")
    return { permission: () => null, pullRequest: () => null };
  const { facts, command } = guess;
  const login = facts.sender.login.toLowerCase();
  const permission = quiet(ports.permissionOf(facts.sender.login));
  let pull = facts.isPullRequest && RUN_VERBS.has(command.verb) ? quiet(ports.pullRequest(facts.number)) : null;
  return {
    permission: (who) => (who.toLowerCase() === login ? permission : null),
    pullRequest(number) {
      if (number !== facts.number || !pull) return null;
      const p = pull;
      pull = null;
      return p;
    },
  };
}

/** The promise, with its rejection marked handled: it is awaited only if the decision needs it. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
