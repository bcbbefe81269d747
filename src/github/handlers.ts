import { authorize, type Sender } from "../commands/authorize.js";
import { helpText } from "../commands/help-text.js";
import type { CommandFlags } from "../commands/parse-command.js";
import { parseRepoConfig, type ConfigResult, type Permission, type RepoConfig } from "../config/repo-config.js";
import { describeMode, type PrMode } from "../context/pr-run-spec.js";
import { sanitiseCommand } from "../context/sanitise-command.js";
import { jobKey } from "../jobs/job.js";
import { decideEvent, type EventFacts } from "./decide-event.js";
import { configMarker, replyMarker, unauthorizedMarker } from "./markers.js";
import { renderConfigProblems } from "./render-config-problems.js";
import { renderUnauthorized } from "./render-unauthorized.js";

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
  | { kind: "reply"; reason: "help" | "usage-error" | "invalid-config" | "refused"; facts: EventFacts; marker: string; body: string }
  | { kind: "cancel"; facts: EventFacts; key: string }
  | {
      kind: "enqueue";
      facts: EventFacts;
      /** Dedupe id: the delivery id (or the label-run id that merges `opened` + `labeled`). */
      jobId: string;
      key: string;
      verb: "run" | "ask" | "undo" | "retry";
      /** The requester's instruction ("" for undo/retry); untrusted issue/PR text is NOT in here. */
      text: string;
      flags: CommandFlags;
      target: JobTargetKind;
      /** Issue/PR title and body, review diff hunk: data for the model, never instructions. */
      untrustedContext: { label: string; text: string }[];
      config: RepoConfig;
      /** Issue #14: the PR loop this run closes (address-reviews, fix-ci); absent: a plain request. */
      mode?: PrMode;
    };

export interface DecideDeps {
  /** The parsed `.github/aider.yml` (or its problems). */
  config: ConfigResult;
  bot: BotIdentity;
  /** The collaborator-permission lookup (io, injected); only called for human senders of a command. */
  permissionOf(login: string, where: { owner: string; repo: string }): Promise<Permission | "none">;
}

const DEFAULTS = (() => {
  const r = parseRepoConfig(null);
  if (!r.ok) throw new Error("the default repo config must be valid");
  return r.config;
})();

/**
 * Decide what a webhook asks of the app (pure apart from the injected permission lookup): parse the command, drop
 * bots and the app itself, authorize the sender, then choose a reply, a cancel or a job. Authorization comes before
 * the config check so a stranger cannot make the bot post anything but the one "not allowed" reply.
 */
export async function decideAction(event: { name: string; id: string; payload: unknown }, deps: DecideDeps): Promise<EventAction> {
  const config = deps.config.ok ? deps.config.config : DEFAULTS;
  const decision = decideEvent(event.name, event.payload, config.trigger);
  if (decision.kind === "ignore") return decision;
  const { facts } = decision;
  // Issue #14 hook: the maintainer's instruction is cleaned of hidden content like every other GitHub text.
  const command = sanitiseCommand(decision.command);
  const sender: Sender = facts.sender;
  const isHuman = sender.type !== "Bot" && sender.login.toLowerCase() !== deps.bot.login.toLowerCase();
  const verb = command.verb === "invalid" ? "help" : command.verb;
  const permission = isHuman ? await deps.permissionOf(sender.login, { owner: facts.owner, repo: facts.repo }) : null;
  const auth = authorize({ sender, verb, permission, selfLogin: deps.bot.login, selfAppId: deps.bot.appId, trigger: config.trigger });
  if (!auth.allow) {
    if (auth.reason !== "permission") return { kind: "ignore", reason: auth.message };
    const body = renderUnauthorized({ login: sender.login, needed: auth.needed, have: auth.have, command: config.trigger.command });
    return { kind: "reply-unauthorized", facts, marker: unauthorizedMarker(sender.login), body };
  }
  const reply = (reason: "help" | "usage-error" | "refused", body: string): EventAction => {
    const marker = replyMarker(event.id);
    return { kind: "reply", reason, facts, marker, body: `${marker}\n${body}` };
  };
  if (!deps.config.ok) return { kind: "reply", reason: "invalid-config", facts, marker: configMarker, body: renderConfigProblems(deps.config.problems) };
  if (command.verb === "help") return reply("help", helpText(config.trigger.command, { contextVerbs: true }));
  if (command.verb === "invalid") return reply("usage-error", `😕 ${command.message}\n\n${helpText(config.trigger.command, { contextVerbs: true })}`);
  const key = jobKey(facts.owner, facts.repo, facts.number);
  if (command.verb === "cancel") return { kind: "cancel", facts, key };
  if (command.verb === "undo" && !facts.isPullRequest) {
    return reply("refused", `😕 \`/${config.trigger.command} undo\` works on pull requests: it reverts my last commit there.`);
  }
  // Issue #14 hook: address-reviews / fix-ci are runs with a mode (their request is built from the threads or checks).
  if ((command.verb === "address-reviews" || command.verb === "fix-ci") && !facts.isPullRequest) {
    return reply("refused", `😕 \`/${config.trigger.command} ${command.verb}\` works on pull requests.`);
  }
  const mode: PrMode | undefined = command.verb === "address-reviews" ? { kind: "address-reviews", threads: command.threads, extra: command.text }
    : command.verb === "fix-ci" ? { kind: "fix-ci", extra: command.text }
    : undefined;
  const flags = "flags" in command ? command.flags : { files: [] };
  // `--model` is checked against `allowed_models` when settings are resolved (after `retry` merges the earlier
  // request's flags), by run/resolve-settings.
  return {
    kind: "enqueue",
    facts,
    jobId: facts.dedupeId ?? event.id,
    key,
    verb: mode ? "run" : (command.verb as "run" | "ask" | "undo" | "retry"),
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
  const out = [{ label: `${kind} #${facts.number}: title and description`, text: `${facts.title}\n\n${facts.body}`.trim() }];
  if (facts.review) {
    const line = facts.review.line ? ` line ${facts.review.line}` : "";
    out.push({ label: `review comment on ${facts.review.path}${line}: the diff hunk it refers to`, text: facts.review.diffHunk });
  }
  return out;
}
