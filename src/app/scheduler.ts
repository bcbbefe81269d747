import { Cron } from "croner";
import type { Logger } from "pino";
import { scheduleKey, type Schedule, type ScheduleTarget } from "../triage/schedule-key.js";

export interface Scheduler {
  /** Re-read every repository's config and (re)arm its cron entries; removed entries stop. */
  sync(): Promise<void>;
  /** The keys of the armed entries (for tests and logs). */
  armed(): string[];
  stop(): void;
}

/**
 * Cron entries from `.github/aider.yml` (`schedules:`), armed with croner. A tick while the same entry's previous run
 * is still going is skipped, so a slow run never piles up copies of itself.
 */
export function createScheduler(deps: {
  listTargets(): Promise<ScheduleTarget[]>;
  fire(target: ScheduleTarget, schedule: Schedule, key: string): Promise<void>;
  log: Logger;
  /**
   * The job engine's schedulers, which fire each tick once across all replicas (the tick then calls `fire` in one
   * worker). Without them (tests, one-off use), each entry is armed here with croner.
   */
  engine?: {
    arm(key: string, target: ScheduleTarget, schedule: Schedule): Promise<void>;
    disarm(key: string): Promise<void>;
  };
}): Scheduler {
  if (deps.engine) return engineScheduler(deps, deps.engine);
  const jobs = new Map<string, Cron>();
  const running = new Set<string>();
  return {
    async sync() {
      const wanted = new Map<string, { target: ScheduleTarget; schedule: Schedule }>();
      for (const target of await deps.listTargets()) {
        target.config.schedules.forEach((schedule, i) =>
          wanted.set(scheduleKey(target, i, schedule), { target, schedule }),
        );
      }
      for (const [key, job] of jobs) {
        if (!wanted.has(key)) {
          job.stop();
          jobs.delete(key);
        }
      }
      for (const [key, { target, schedule }] of wanted) {
        if (jobs.has(key)) continue;
        const job = new Cron(
          schedule.cron,
          { unref: true, protect: true, ...(schedule.timezone ? { timezone: schedule.timezone } : {}) },
          async () => {
            if (running.has(key)) return;
            running.add(key);
            try {
              await deps.fire(target, schedule, key);
            } catch (error) {
              deps.log.warn({ err: error, schedule: key }, "scheduled run could not start");
            } finally {
              running.delete(key);
            }
          },
        );
        jobs.set(key, job);
        deps.log.info({ schedule: key, cron: schedule.cron, next: job.nextRun()?.toISOString() }, "schedule armed");
      }
    },
    armed: () => [...jobs.keys()],
    stop() {
      for (const job of jobs.values()) job.stop();
      jobs.clear();
    },
  };
}

/** {@link createScheduler} over the job engine: arming is an upsert of the engine's schedule, idempotent per key. */
function engineScheduler(
  deps: { listTargets(): Promise<ScheduleTarget[]>; log: Logger },
  engine: NonNullable<Parameters<typeof createScheduler>[0]["engine"]>,
): Scheduler {
  const armed = new Set<string>();
  return {
    async sync() {
      const wanted = new Map<string, { target: ScheduleTarget; schedule: Schedule }>();
      for (const target of await deps.listTargets()) {
        target.config.schedules.forEach((schedule, i) =>
          wanted.set(scheduleKey(target, i, schedule), { target, schedule }),
        );
      }
      for (const key of armed) {
        if (wanted.has(key)) continue;
        await engine.disarm(key);
        armed.delete(key);
      }
      for (const [key, { target, schedule }] of wanted) {
        if (armed.has(key)) continue;
        await engine.arm(key, target, schedule);
        armed.add(key);
        deps.log.info({ schedule: key, cron: schedule.cron }, "schedule armed");
      }
    },
    armed: () => [...armed],
    stop: () => armed.clear(),
  };
}
