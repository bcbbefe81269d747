import type { Probot } from "probot";
import type { JobHandler } from "../jobs/job-engine.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";
import type { DashboardService } from "./dashboard/dashboard-service.js";
import { isDashboardEdit } from "./dashboard/handle-dashboard-edit.js";
import { parseWebhook } from "../edge/parse-webhook.js";
import type { IntakeGate } from "./intake-gate.js";
import type { Schedule, ScheduleTarget } from "../triage/schedule-key.js";

/**
 * A delivery is stored as the text GitHub sent (`raw`), parsed again by its triage: encoding the parsed payload into
 * the queue cost more than the rest of the intake. Records stored whole (`payload`) by an older version still work.
 */
export type StoredWebhook = { id: string; name: string; raw: string } | VerifiedWebhook;
/** What a triage job carries: a verified webhook, or a schedule's tick (fired once per tick across replicas). */
export type TriageData = StoredWebhook | { tick: { key: string; target: ScheduleTarget; schedule: Schedule } };

export function webhookOf(stored: StoredWebhook): { id: string; name: string; payload: unknown } {
  if ("payload" in stored) return { id: stored.id, name: stored.name, payload: stored.payload };
  const payload: unknown = JSON.parse(stored.raw);
  return { id: stored.id, name: stored.name, payload };
}

/**
 * The triage job's handler: a schedule's tick fires it, a dashboard edit goes to the dashboard, and every other
 * webhook goes through Probot to the handlers (github/register-handlers).
 */
export function createTriageHandler(deps: {
  app: Pick<Probot, "receive">;
  gate?: IntakeGate;
  fire(target: ScheduleTarget, schedule: Schedule, key: string): Promise<void>;
  dashboard(): DashboardService | null;
}): JobHandler<TriageData> {
  return async (job) => {
    await deps.gate?.quiet();
    if ("tick" in job.data) return deps.fire(job.data.tick.target, job.data.tick.schedule, job.data.tick.key);
    const event = webhookOf(job.data);
    // A dashboard's "Run now" goes to the dashboard, typed by the edge (the receiver recorded it as well-formed).
    if (event.name === "issues") {
      const parsed = parseWebhook(event.name, event.payload, event.id);
      if (parsed.ok && isDashboardEdit(parsed.event)) return deps.dashboard()?.edited(parsed.event);
    }
    // The delivery's signature was verified at intake, so it is one of GitHub's events, which Probot's type lists
    // by name; its name and payload were stored as GitHub sent them and are not re-checked against that union.
    await deps.app.receive(event as Parameters<Probot["receive"]>[0]);
  };
}
