import type { Logger } from "pino";
import { authorize } from "../../commands/authorize.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { GitHubClient } from "../../github/github-client.js";
import { RepoGitHub } from "../../github/repo-github.js";
import type { BotEvent, IssueEditEvent } from "../../edge/bot-event.js";
import { scheduleKey, type Schedule, type ScheduleTarget } from "../../triage/schedule-key.js";
import { DASHBOARD_MARKER, newlyTicked, tickedKeys } from "./dashboard-body.js";

/** Whether an issue edit is of a dashboard issue (what the receiver records besides commands). */
export function isDashboardEdit(event: BotEvent): event is IssueEditEvent {
  return event.kind === "issue-edit" && !event.thread.isPullRequest && event.thread.body.includes(DASHBOARD_MARKER);
}

export interface DashboardEditDeps {
  api: GitHubClient;
  botLogin: string;
  log: Logger;
  /** `.github/aider.yml` of the default branch (null: none or invalid). */
  loadConfig(owner: string, repo: string): Promise<RepoConfig | null>;
  /** Start one schedule now under `jobId` (see fireScheduleDetailed's `manual`); true when a run was queued. */
  fire(
    target: ScheduleTarget,
    schedule: Schedule,
    key: string,
    manual: { jobId: string; by: string },
  ): Promise<boolean>;
  /** Re-render the dashboard with these boxes cleared. */
  untick(target: ScheduleTarget, keys: readonly string[]): Promise<void>;
}

/**
 * "Run now" on the dashboard: an `issues.edited` delivery whose edit ticked a schedule's box starts that schedule
 * once. Only boxes this edit ticked count (the transition from the body before the edit), only those still ticked
 * in the issue as it is now (a box the bot already cleared was handled), and the run's job id carries the delivery
 * id, so a redelivered edit finds its run queued and starts nothing. The sender passes the same gate as a command
 * (`trigger.min_permission`, bots only when allowed); a refusal clears the box and says why.
 */
export async function handleDashboardEdit(
  event: IssueEditEvent,
  deps: DashboardEditDeps,
): Promise<{ started: string[] }> {
  const { repository, thread, sender } = event;
  const { owner, name: repo } = repository;
  const { number } = thread;
  const deliveryId = event.delivery;
  const login = sender.login;
  if (thread.author !== deps.botLogin) return { started: [] };
  const asked = newlyTicked(event.before, thread.body);
  if (asked.length === 0) return { started: [] };
  const config = await deps.loadConfig(owner, repo);
  if (!config) {
    deps.log.warn({ repo: `${owner}/${repo}` }, "dashboard edit: no valid .github/aider.yml on the default branch");
    return { started: [] };
  }
  const target: ScheduleTarget = {
    installationId: event.installationId,
    owner,
    repo,
    defaultBranch: repository.defaultBranch,
    cloneUrl: repository.cloneUrl,
    webUrl: repository.webUrl,
    ...(repository.language ? { language: repository.language } : {}),
    config,
  };
  const github = RepoGitHub.create({ octokit: deps.api, owner, repo });
  const permission = sender.type === "Bot" ? null : await github.permissionOf(login);
  const decision = authorize({
    sender: { login, type: sender.type },
    verb: "run",
    permission,
    selfLogin: deps.botLogin,
    trigger: config.trigger,
  });
  if (!decision.allow) {
    if (decision.reason === "self") return { started: [] };
    await deps.untick(target, asked);
    await github.ensureComment({
      issueNumber: number,
      botLogin: deps.botLogin,
      marker: `<!-- aider-bot:dashboard-refused:${deliveryId} -->`,
      body: `<!-- aider-bot:dashboard-refused:${deliveryId} -->\n⛔ "Run now" was not started: ${decision.message}`,
    });
    return { started: [] };
  }
  // The issue as it is now: a box the bot already cleared (this edit handled before) is not started again.
  const current = await github.getIssueBody(number);
  const still = new Set(tickedKeys(current));
  const started: string[] = [];
  const handled: string[] = [];
  for (const [index, schedule] of config.schedules.entries()) {
    const key = scheduleKey(target, index, schedule);
    if (!asked.includes(key) || !still.has(key)) continue;
    handled.push(key);
    if (await deps.fire(target, schedule, key, { jobId: `${key}@run-now:${deliveryId}`, by: login })) started.push(key);
  }
  // A box for a schedule no longer in the config is cleared too.
  const gone = asked.filter((k) => still.has(k) && !handled.includes(k));
  if (handled.length + gone.length > 0) await deps.untick(target, [...handled, ...gone]);
  deps.log.info({ repo: `${owner}/${repo}`, started, by: login }, "dashboard: run now");
  return { started };
}
