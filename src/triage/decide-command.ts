import { authorize, type AuthDecision, type Sender } from "../commands/authorize.js";
import { helpText } from "../commands/help-text.js";
import type { AnyCommand, CommandFlags } from "../commands/parse-command.js";
import { parseRepoConfig, type ConfigResult, type Permission, type RepoConfig } from "../config/repo-config.js";
import { describeMode, type PrMode } from "../context/pr-run-spec.js";
import { sanitiseCommand } from "../context/sanitise-command.js";
import { jobKey } from "../jobs/job.js";
import { configMarker, replyMarker, unauthorizedMarker } from "../github/markers.js";
import { renderConfigProblems } from "../report/render-config-problems.js";
import { renderUnauthorized } from "../report/render-unauthorized.js";
import type { EventFacts } from "./read-request.js";

export type { EventFacts } from "./read-request.js";

/** Who the app is: its own comments and actions are never commands. */
export interface BotIdentity {
  login: string;
  appId?: number;
}

/** Where a job's result goes: a commit on the PR's branch, a new PR off the default branch, or a review-thread reply. */
export type JobTargetKind = "pr-branch" | "new-pr-from-default" | "review-thread";

/** What one webhook asks of the app. Every reply carries a marker, so a redelivery edits it instead of repeating it. */
export type EventAction =
  | { kind: "ignore"; reason: string }
  | { kind: "reply-unauthorized"; facts: EventFacts; marker: string; body: string }
  | {
      kind: "reply";
      reason: "help" | "usage-error" | "invalid-config" | "refused";
      facts: EventFacts;
      marker: string;
      body: string;
    }
  /** `marker`: the delivery's reply marker, so a retried cancel finds the reply it posted. */
  | { kind: "cancel"; facts: EventFacts; key: string; marker: string }
  /** `/aider usage`, answered from the spend ledger (triage reads it; this decision is pure). */
  | { kind: "usage"; facts: EventFacts; marker: string; config: RepoConfig }
  /** `/aider plan drop`. */
  | { kind: "drop-plan"; facts: EventFacts; command: string; marker: string }
  /** `/aider checks`: post the check plan of the default branch. */
  | { kind: "show-checks"; facts: EventFacts; marker: string; config: RepoConfig }
  | {
      kind: "enqueue";
      facts: EventFacts;
      /** Dedupe id: the delivery id (or the label-run id that merges `opened` + `labeled`). */
      jobId: string;
      /** X-GitHub-Delivery of the event that asked (the request's delivery id; its reply marker). */
      delivery: string;
      key: string;
      verb: "run" | "ask" | "undo" | "retry" | "plan" | "approve";
      /** The requester's instruction ("" for undo/retry); untrusted issue/PR text is NOT in here. */
      text: string;
      flags: CommandFlags;
      target: JobTargetKind;
      /** Issue/PR title and body, review diff hunk: data for the model, never instructions. */
      untrustedContext: { label: string; text: string }[];
      config: RepoConfig;
      /** The PR loop this run closes (address-reviews, fix-ci); absent: a plain request. */
      mode?: PrMode;
    };

/** What {@link decideCommand} decides on: all read beforehand (gather-command.ts), so the decision is pure. */
export interface Gathered {
  /** X-GitHub-Delivery: replies carry it in their marker, and a command's job has it as its id. */
  delivery: string;
  /** The parsed `.github/aider.yml` (or its problems). */
  config: ConfigResult;
  bot: BotIdentity;
  /** The command the event carries and its facts (read with the config's command word and label). */
  command: AnyCommand;
  facts: EventFacts;
  /** The sender's permission on the repository; null for a bot or the app itself (never looked up). */
  permission: Permission | "none" | null;
}

const DEFAULTS = (() => {
  const r = parseRepoConfig(null);
  if (!r.ok) throw new Error("the default repo config must be valid");
  return r.config;
})();

/** The command word and label of a repository without a config (what an event is read with before its config is). */
export const DEFAULT_TRIGGER: RepoConfig["trigger"] = DEFAULTS.trigger;

/** The config a decision uses: the repository's, or the defaults while it is invalid (so the grammar still works). */
export function effectiveConfig(config: ConfigResult): RepoConfig {
  return config.ok ? config.config : DEFAULTS;
}

/**
 * Whether the decision needs the sender's permission: a person's command does; a bot, the app itself, or a box
 * ticked outside the bot's own plan comment are decided without it.
 */
export function permissionNeeded(facts: Pick<EventFacts, "sender" | "planComment">, bot: BotIdentity): boolean {
  if (facts.planComment && !isBotsComment(facts.planComment, bot)) return false;
  return facts.sender.type !== "Bot" && facts.sender.login.toLowerCase() !== bot.login.toLowerCase();
}

/**
 * What a command asks of the app (pure): drop bots and the app itself, authorize the sender, then choose a reply, a
 * cancel or a job. Authorization comes before the config check so a stranger cannot make the bot post anything but
 * the one "not allowed" reply.
 */
export function decideCommand(g: Gathered): EventAction {
  const config = effectiveConfig(g.config);
  const { facts } = g;
  // A ticked approve box counts only on the bot's own plan comment (anyone may write a look-alike box).
  if (facts.planComment && !isBotsComment(facts.planComment, g.bot))
    return { kind: "ignore", reason: "an approve box outside the bot's own plan comment" };
  // The maintainer's instruction is cleaned of hidden content like every other GitHub text.
  const command = sanitiseCommand(g.command);
  const sender: Sender = facts.sender;
  const verb = command.verb === "invalid" ? "help" : command.verb;
  const auth = authorizeSender({ sender, verb, permission: g.permission, bot: g.bot, config });
  if (!auth.allow) {
    if (auth.reason !== "permission") return { kind: "ignore", reason: auth.message };
    const body = renderUnauthorized({
      login: sender.login,
      needed: auth.needed,
      have: auth.have,
      command: config.trigger.command,
    });
    return { kind: "reply-unauthorized", facts, marker: unauthorizedMarker(sender.login), body };
  }
  const reply = (reason: "help" | "usage-error" | "refused", body: string): EventAction => {
    const marker = replyMarker(g.delivery);
    return { kind: "reply", reason, facts, marker, body: `${marker}\n${body}` };
  };
  if (!g.config.ok)
    return {
      kind: "reply",
      reason: "invalid-config",
      facts,
      marker: configMarker,
      body: renderConfigProblems(g.config.problems),
    };
  if (command.verb === "help") return reply("help", helpText(config.trigger.command, { contextVerbs: true }));
  if (command.verb === "checks") return { kind: "show-checks", facts, marker: replyMarker(g.delivery), config };
  if (command.verb === "invalid")
    return reply("usage-error", `😕 ${command.message}\n\n${helpText(config.trigger.command, { contextVerbs: true })}`);
  if (command.verb === "usage") return { kind: "usage", facts, marker: replyMarker(g.delivery), config };
  const key = jobKey(facts.owner, facts.repo, facts.number);
  if (command.verb === "cancel") return { kind: "cancel", facts, key, marker: replyMarker(g.delivery) };
  if (command.verb === "plan-drop")
    return { kind: "drop-plan", facts, command: config.trigger.command, marker: replyMarker(g.delivery) };
  if (command.verb === "undo" && !facts.isPullRequest) {
    return reply(
      "refused",
      `😕 \`/${config.trigger.command} undo\` works on pull requests: it reverts my last commit there.`,
    );
  }
  // address-reviews / fix-ci are runs with a mode (their request is built from the threads or checks).
  if ((command.verb === "address-reviews" || command.verb === "fix-ci") && !facts.isPullRequest) {
    return reply("refused", `😕 \`/${config.trigger.command} ${command.verb}\` works on pull requests.`);
  }
  return enqueueAction(command, facts, g.delivery, key, config);
}

/**
 * Whether this sender may ask for this verb here: the one gate of every command, the App's comments and labels and
 * the Action's dispatch alike (`permission` as gathered: null when {@link permissionNeeded} said no).
 */
export function authorizeSender(args: {
  sender: Sender;
  verb: string;
  permission: Gathered["permission"];
  bot: BotIdentity;
  config: RepoConfig;
}): AuthDecision {
  return authorize({
    sender: args.sender,
    verb: args.verb,
    permission: args.permission,
    selfLogin: args.bot.login,
    selfAppId: args.bot.appId,
    trigger: args.config.trigger,
  });
}

/** Whether a plan comment is the bot's own: written by its login, or made by its App. */
function isBotsComment(comment: { author: string; appId?: number }, bot: BotIdentity): boolean {
  return (
    comment.author.toLowerCase() === bot.login.toLowerCase() || (bot.appId !== undefined && comment.appId === bot.appId)
  );
}

/** A command that runs as a job: its mode, verb, flags and target, with the text as untrusted context. */
function enqueueAction(
  command: Exclude<AnyCommand, { verb: "invalid" | "help" | "checks" | "usage" | "cancel" | "plan-drop" }>,
  facts: EventFacts,
  deliveryId: string,
  key: string,
  config: RepoConfig,
): EventAction {
  const mode: PrMode | undefined =
    command.verb === "address-reviews"
      ? { kind: "address-reviews", threads: command.threads, extra: command.text }
      : command.verb === "fix-ci"
        ? { kind: "fix-ci", extra: command.text }
        : undefined;
  const flags = "flags" in command ? command.flags : { files: [] };
  // `plan: true`: a label run posts a plan for approval first.
  const runVerb = facts.dedupeId && config.plan && command.verb === "run" ? "plan" : command.verb;
  // `--model` is checked against `allowed_models` when settings are resolved (after `retry` merges the earlier
  // request's flags), by run/prepare/resolve-settings.
  return {
    kind: "enqueue",
    facts,
    jobId: facts.dedupeId ?? deliveryId,
    delivery: deliveryId,
    key,
    verb: mode ? "run" : (runVerb as "run" | "ask" | "undo" | "retry" | "plan" | "approve"),
    text: mode ? describeMode(mode) : "text" in command ? command.text : "",
    ...(mode ? { mode } : {}),
    flags: { ...flags, files: [...new Set([...flags.files, ...(facts.review ? [facts.review.path] : [])])] },
    target: facts.review ? "review-thread" : facts.isPullRequest ? "pr-branch" : "new-pr-from-default",
    untrustedContext: untrustedContext(facts),
    config,
  };
}

function untrustedContext(facts: EventFacts): { label: string; text: string }[] {
  const kind = facts.isPullRequest ? "pull request" : "issue";
  const out = [
    { label: `${kind} #${facts.number}: title and description`, text: `${facts.title}\n\n${facts.body}`.trim() },
  ];
  if (facts.review) {
    const line = facts.review.line ? ` line ${facts.review.line}` : "";
    out.push({
      label: `review comment on ${facts.review.path}${line}: the diff hunk it refers to`,
      text: facts.review.diffHunk,
    });
  }
  return out;
}
