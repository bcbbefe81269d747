import type { Logger } from "pino";
import { runDefaults } from "../compose/run-settings.js";
import type { AppEnv } from "../config/env.js";
import type { GitHubClient } from "../github/github-client.js";
import type { RunQueue } from "../run/run-job-data.js";
import type { JobEngine } from "../jobs/job-engine.js";
import { createDashboardService, type DashboardService } from "./dashboard/dashboard-service.js";
import { fireScheduleDetailed } from "../triage/fire-schedule.js";
import { listScheduleTargets } from "./list-schedule-targets.js";
import { createScheduler } from "./scheduler.js";
import type { Schedule, ScheduleTarget } from "../triage/schedule-key.js";
import type { TriageData } from "./triage-handler.js";

/** The App's GitHub side as the schedules use it: the App's client, an installation's, the bot's login. */
export interface AppGitHub {
  appApi(): Promise<GitHubClient>;
  installationApi(id: number): Promise<GitHubClient>;
  botLogin(): Promise<string>;
}

/** How a schedule entry is fired: by its tick (`fire`, which may skip) or from the dashboard's "Run now". */
export interface ScheduleFiring {
  fire(target: ScheduleTarget, schedule: Schedule, key: string): Promise<void>;
  /** The schedules dashboard (one issue per repository with schedules; "Run now" boxes), when on. */
  dashboard: DashboardService | null;
}

/** Firing a schedule entry: a run on its tracking issue, reported to the dashboard; a skipped tick logged. */
export function scheduleFiring(
  env: Pick<AppEnv, "scheduleDashboard" | "model" | "weakModel" | "fallbackModels">,
  gh: AppGitHub,
  runs: RunQueue,
  log: Logger,
): ScheduleFiring {
  const fireOnce = async (target: ScheduleTarget, schedule: Schedule, key: string, manual?: { jobId: string }) =>
    fireScheduleDetailed({
      api: await gh.installationApi(target.installationId),
      target,
      schedule,
      key,
      botLogin: await gh.botLogin(),
      runs,
      defaults: runDefaults(env),
      now: new Date(),
      ...(manual ? { manual } : {}),
    });
  const dashboard = env.scheduleDashboard
    ? createDashboardService({
        installationApi: gh.installationApi,
        botLogin: gh.botLogin,
        log,
        fire: fireOnce,
      })
    : null;
  return {
    dashboard,
    async fire(target, schedule, key) {
      const result = await fireOnce(target, schedule, key);
      if (result.kind === "skipped")
        log.info(
          { schedule: key, pr: result.pr },
          "schedule tick skipped: its last pull request is still open (stack: false)",
        );
      await dashboard?.fired(target, key, result);
    },
  };
}

/**
 * Arm every installed repository's `schedules` now and every `AIDER_BOT_SCHEDULE_SYNC_MS`: each tick becomes one
 * triage job, whichever replicas armed it; the job's id carries the tick's time.
 */
export function armSchedules(
  env: Pick<AppEnv, "scheduleSyncMs">,
  gh: AppGitHub,
  firing: ScheduleFiring,
  triage: JobEngine<TriageData>,
  log: Logger,
): void {
  const scheduler = createScheduler({
    log,
    listTargets: async () => {
      const targets = await listScheduleTargets({
        appApi: await gh.appApi(),
        installationApi: gh.installationApi,
        log,
      });
      await firing.dashboard?.synced(targets);
      return targets;
    },
    fire: firing.fire,
    engine: {
      arm: (key, target, schedule) =>
        triage.upsertSchedule(
          key,
          schedule.cron,
          {
            key: `schedule:${key}`,
            installationId: target.installationId,
            kind: "schedule",
            data: { tick: { key, target, schedule } },
          },
          schedule.timezone,
        ),
      disarm: (key) => triage.removeSchedule(key),
    },
  });
  const sync = () => scheduler.sync().catch((error: unknown) => log.warn({ err: error }, "schedule sync failed"));
  void sync();
  setInterval(sync, env.scheduleSyncMs).unref();
}
