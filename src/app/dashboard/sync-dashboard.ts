import { Cron } from "croner";
import type { GitHubClient } from "../../github/github-client.js";
import { RepoGitHub } from "../../github/repo-github.js";
import type { Schedule } from "../../triage/schedule-key.js";
import { DASHBOARD_MARKER, DASHBOARD_TITLE, readLastRuns, tickedKeys, type LastRun } from "./dashboard-body.js";
import { renderDashboard } from "./render-dashboard.js";

/** A schedule's next tick after `now` in its time zone, or null when it never fires again. */
export function nextRun(schedule: Pick<Schedule, "cron" | "timezone">, now: Date): Date | null {
  const cron = new Cron(schedule.cron, { paused: true, ...(schedule.timezone ? { timezone: schedule.timezone } : {}) });
  const next = cron.nextRun(now);
  cron.stop();
  return next;
}

interface FoundIssue {
  number: number;
  body: string;
}

/** The repository's dashboard issue (open or closed, opened by the bot and carrying the marker), or null. */
export async function findDashboard(github: RepoGitHub, botLogin: string): Promise<FoundIssue | null> {
  const found = await github.findIssueByMarker({ creator: botLogin, marker: DASHBOARD_MARKER, state: "all" });
  return found ? { number: found.number, body: found.body } : null;
}

/**
 * Create or edit in place the repository's one dashboard issue: its schedules, next runs and remembered last runs,
 * with `update` applied (a tick fired or a run ended) and the boxes of `untick` cleared. Boxes ticked by someone and
 * not handled yet stay ticked. Writes only when the body changed, so every replica may call it.
 */
export async function syncDashboard(args: {
  api: GitHubClient;
  owner: string;
  repo: string;
  schedules: readonly { key: string; schedule: Schedule }[];
  botLogin: string;
  minPermission: string;
  now: Date;
  update?: { key: string; last: LastRun };
  untick?: readonly string[];
}): Promise<number> {
  const github = RepoGitHub.create({ octokit: args.api, owner: args.owner, repo: args.repo });
  const found = await findDashboard(github, args.botLogin);
  const lastRuns = readLastRuns(found?.body ?? "");
  if (args.update) {
    // A run's end keeps who started it with "Run now".
    const before = lastRuns.get(args.update.key);
    const by =
      args.update.last.by ??
      (before?.outcome === "started" && before.issue === args.update.last.issue ? before.by : undefined);
    lastRuns.set(args.update.key, { ...args.update.last, ...(by ? { by } : {}) });
  }
  const ticked = new Set(tickedKeys(found?.body ?? ""));
  for (const key of args.untick ?? []) ticked.delete(key);
  const body = renderDashboard(
    args.schedules.map(({ key, schedule }) => ({
      key,
      cron: schedule.cron,
      ...(schedule.timezone ? { timezone: schedule.timezone } : {}),
      message: schedule.message,
      stack: schedule.stack,
      next: nextRun(schedule, args.now),
      ...(lastRuns.has(key) ? { last: lastRuns.get(key) } : {}),
      ticked: ticked.has(key),
    })),
    { minPermission: args.minPermission },
  );
  if (!found) return (await github.createIssue(DASHBOARD_TITLE, body)).number;
  if (found.body !== body) await github.updateIssueBody(found.number, body);
  return found.number;
}
