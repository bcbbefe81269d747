import type { AnyCommand } from "../commands/parse-command.js";
import type { Permission } from "../config/repo-config.js";
import type { CommandEvent } from "../edge/bot-event.js";
import type { RepoGitHub } from "../github/repo-github.js";
import { DEFAULT_TRIGGER } from "./decide-command.js";
import { readRequest } from "./read-request.js";

/** A pull request as the gateway reads it. */
type PullRequestData = Awaited<ReturnType<RepoGitHub["getPullRequest"]>>;
/** A thread's comments as the gateway lists them. */
type IssueComment = Awaited<ReturnType<RepoGitHub["listComments"]>>[number];

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
  /** The thread's comments, where the run's status comment is looked for by its marker. */
  comments(number: number): Promise<IssueComment[]>;
}

/** Reads started as the event arrived; each is handed out once, to the read it stands in for. */
export interface EarlyReads {
  /** The sender's permission, when it was started for `login`. */
  permission(login: string): Promise<Permission | "none"> | null;
  /** The pull request `number`, when it was started for it (once: a later read asks GitHub again). */
  pullRequest(number: number): Promise<PullRequestData> | null;
  /** The comments of thread `number`, when they were started for it (once, likewise). */
  comments(number: number): Promise<IssueComment[]> | null;
}

/**
 * The sender's permission, the pull request and the thread's comments (where the run's status comment is looked for),
 * read beside the config rather than after it, when the event asks for a run under the default command word. Triage
 * reads the config first (its command word says whether the event asks anything), then the permission, then the pull
 * request, then the thread's comments: four GitHub round trips one after another before 👀, the "queued" comment and
 * the run's start; now they overlap. The cost: where the config changes the command word or the event turns out to
 * ask nothing, one or two reads are made for nothing. A failed early read fails only the decision that uses it, as
 * the read it stands in for would have.
 */
export function startEarlyReads(event: CommandEvent, ports: EarlyReadPorts): EarlyReads {
  const guess = readRequest(event, DEFAULT_TRIGGER);
  if (guess.kind !== "command" || guess.facts.sender.type === "Bot")
    return { permission: () => null, pullRequest: () => null, comments: () => null };
  const { facts, command } = guess;
  const login = facts.sender.login.toLowerCase();
  const permission = quiet(ports.permissionOf(facts.sender.login));
  const runs = RUN_VERBS.has(command.verb);
  const pull = once(facts.number, runs && facts.isPullRequest ? quiet(ports.pullRequest(facts.number)) : null);
  // A label run searches the thread for its own comment by another route (its dedupe id): not read early.
  const comments = once(facts.number, runs && !facts.dedupeId ? quiet(ports.comments(facts.number)) : null);
  return {
    permission: (who) => (who.toLowerCase() === login ? permission : null),
    pullRequest: pull,
    comments,
  };
}

/** The promise for thread `number`, handed out once; null for another thread, or after it was taken. */
function once<T>(number: number, p: Promise<T> | null): (n: number) => Promise<T> | null {
  let left = p;
  return (n) => {
    if (n !== number || !left) return null;
    const taken = left;
    left = null;
    return taken;
  };
}

/** The promise, with its rejection marked handled: it is awaited only if the decision needs it. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/**
 * The gateway, with the early reads handed to the first read each stands in for: the pull request to
 * `getPullRequest`, the thread's comments to the first listing of that thread (a retry's search for its request, a
 * reply's or the status comment's search for its marker). A status comment edited by id or posted without a search
 * lists nothing, and leaves the early list to the next one.
 */
export function withEarlyReads(github: RepoGitHub, early: EarlyReads): RepoGitHub {
  const listed = (issueNumber: number) => {
    const p = early.comments(issueNumber);
    return p ? { listed: p } : {};
  };
  return {
    ...github,
    getPullRequest: (n) => early.pullRequest(n) ?? github.getPullRequest(n),
    listComments: (n) => early.comments(n) ?? github.listComments(n),
    findComment: (args) => github.findComment(args.listed ? args : { ...args, ...listed(args.issueNumber) }),
    ensureComment: (args) => github.ensureComment(args.listed ? args : { ...args, ...listed(args.issueNumber) }),
    ensureStatusComment: (args) =>
      github.ensureStatusComment(
        args.listed || args.known || args.commentId !== undefined ? args : { ...args, ...listed(args.issueNumber) },
      ),
  };
}
