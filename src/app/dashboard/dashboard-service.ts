import type { Logger } from "pino";
import type { GitHubClient } from "../../github/github-client.js";
import type { RunJobData } from "../../run/run-job-data.js";
import type { FireResult } from "../../triage/fire-schedule.js";
import { readRepoConfig } from "../list-schedule-targets.js";
import { scheduleKey, type Schedule, type ScheduleTarget } from "../../triage/schedule-key.js";
import type { LastRun } from "./dashboard-body.js";
import { handleDashboardEdit } from "./handle-dashboard-edit.js";
import { syncDashboard } from "./sync-dashboard.js";
import type { IssueEditEvent } from "../../edge/bot-event.js";
import { threadNumber } from "../../run/run-target.js";

export interface DashboardService {
  /** After a schedule sync: every repository with schedules has its dashboard, with next runs up to date. */
  synced(targets: readonly ScheduleTarget[]): Promise<void>;
  /** A tick or a "Run now" fired: the schedule's last run is that (started, or skipped for an open PR). */
  fired(target: ScheduleTarget, key: string, result: FireResult, by?: string): Promise<void>;
  /** A scheduled run ended (in the parent, from its job process's answer). */
  runEnded(job: RunJobData, outcome: string, pr: number | undefined, startedAt: Date): Promise<void>;
  /** An `issues.edited` delivery of a dashboard issue ("Run now"). */
  edited(event: IssueEditEvent): Promise<void>;
}

/** The schedule key a scheduled run's job id starts with (`<key>@<tick time>` or `<key>@run-now:<delivery>`). */
export const keyOfScheduledJob = (jobId: string): string => jobId.slice(0, jobId.lastIndexOf("@"));

/**
 * The schedules dashboard (one issue per repository with schedules, see sync-dashboard), kept up to date from the
 * places that know: the schedule sync, each firing, each scheduled run's end, and "Run now" edits. A dashboard that
 * cannot be written is logged and never stops a schedule.
 */
export function createDashboardService(deps: {
  installationApi(id: number): Promise<GitHubClient>;
  botLogin(): Promise<string>;
  log: Logger;
  fire(
    target: ScheduleTarget,
    schedule: Schedule,
    key: string,
    manual: { jobId: string; by: string },
  ): Promise<FireResult>;
}): DashboardService {
  const entries = (target: ScheduleTarget) =>
    target.config.schedules.map((schedule, i) => ({ key: scheduleKey(target, i, schedule), schedule }));
  const write = async (
    target: ScheduleTarget,
    extra: { update?: { key: string; last: LastRun }; untick?: readonly string[] } = {},
  ) => {
    const api = await deps.installationApi(target.installationId);
    await syncDashboard({
      api,
      owner: target.owner,
      repo: target.repo,
      schedules: entries(target),
      botLogin: await deps.botLogin(),
      minPermission: target.config.trigger.min_permission,
      now: new Date(),
      ...extra,
    });
  };
  const logged = (what: string, repo: string) => (error: unknown) =>
    deps.log.warn({ err: error, repo }, `dashboard: could not ${what}`);
  const service: DashboardService = {
    async synced(targets) {
      for (const target of targets) await write(target).catch(logged("update", `${target.owner}/${target.repo}`));
    },
    async fired(target, key, result, by) {
      if (result.kind === "duplicate") return;
      const last: LastRun =
        result.kind === "started"
          ? { at: new Date().toISOString(), outcome: "started", issue: result.issue, ...(by ? { by } : {}) }
          : { at: new Date().toISOString(), outcome: "skipped", issue: result.issue, pr: result.pr };
      await write(target, { update: { key, last } }).catch(logged("record a firing", `${target.owner}/${target.repo}`));
    },
    async runEnded(job, outcome, pr, startedAt) {
      const { owner, repo, installationId } = job.req;
      try {
        const api = await deps.installationApi(installationId);
        const config = await readRepoConfig(api, owner, repo, deps.log);
        if (!config || config.schedules.length === 0) return;
        const target: ScheduleTarget = {
          installationId,
          owner,
          repo,
          defaultBranch: job.req.defaultBranch,
          cloneUrl: job.req.cloneUrl,
          config,
        };
        const issue = threadNumber(job.req.target);
        await write(target, {
          update: {
            key: keyOfScheduledJob(job.req.jobId),
            last: {
              at: startedAt.toISOString(),
              outcome,
              ...(issue !== undefined ? { issue } : {}),
              ...(pr !== undefined ? { pr } : {}),
            },
          },
        });
      } catch (error) {
        logged("record a run's outcome", `${owner}/${repo}`)(error);
      }
    },
    async edited(event) {
      const api = await deps.installationApi(event.installationId);
      await handleDashboardEdit(event, {
        api,
        botLogin: await deps.botLogin(),
        log: deps.log,
        loadConfig: (owner, repo) => readRepoConfig(api, owner, repo, deps.log),
        fire: async (target, schedule, key, manual) => {
          const result = await deps.fire(target, schedule, key, manual);
          if (result.kind === "started") await service.fired(target, key, result, manual.by);
          return result.kind === "started";
        },
        untick: (target, keys) => write(target, { untick: keys }),
      });
    },
  };
  return service;
}
