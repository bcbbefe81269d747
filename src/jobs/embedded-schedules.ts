import { Cron } from "croner";
import { schedulePump } from "./embedded-pump.js";
import type { EmbeddedWorker } from "./embedded-worker.js";
import type { ScheduledJob } from "./job-engine.js";

/**
 * Arms a stored schedule in this process. Every process with a handler arms every schedule; each tick enqueues its
 * job under an id made of the tick's time, so the store's dedupe keeps one whichever replicas fired.
 */
export function armSchedule<T>(
  w: EmbeddedWorker<T>,
  id: string,
  cron: string,
  job: ScheduledJob<T>,
  timezone: string,
): void {
  w.crons.get(id)?.stop();
  const c = new Cron(cron, { timezone, unref: true }, (self: Cron) => {
    // The tick's own time (not "now"), so every replica derives the same id and the seen set keeps one.
    const tick = Math.round((self.currentRun()?.getTime() ?? Date.now()) / 1000) * 1000;
    if (w.closed) return;
    w.store
      .enqueue({ ...job, id: `schedule:${id}:${tick}` })
      .then(() => schedulePump(w, 0))
      .catch(w.report);
  });
  w.crons.set(id, c);
}

/** Arms every stored schedule (at start). */
export function armStoredSchedules<T>(w: EmbeddedWorker<T>): void {
  for (const s of w.store.schedules()) armSchedule(w, s.id, s.cron, s.job, s.timezone);
}

/** Stores a schedule (checked first: a bad pattern or zone throws before anything is stored) and arms it here. */
export async function upsertSchedule<T>(
  w: EmbeddedWorker<T>,
  id: string,
  cron: string,
  job: ScheduledJob<T>,
  timezone: string,
): Promise<void> {
  new Cron(cron, { paused: true, timezone }).stop();
  await w.store.putSchedule(id, cron, job, timezone);
  if (w.o.handler && !w.closed) armSchedule(w, id, cron, job, timezone);
}

export async function removeSchedule<T>(w: EmbeddedWorker<T>, id: string): Promise<void> {
  await w.store.removeSchedule(id);
  w.crons.get(id)?.stop();
  w.crons.delete(id);
}
