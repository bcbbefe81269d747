import type { Probot } from "probot";
import type { BotEvent } from "../edge/bot-event.js";
import { parseWebhook } from "../edge/parse-webhook.js";
import type { JobHandler } from "../jobs/job-engine.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";
import type { AppServices, HandleResult } from "../triage/triage-services.js";
import { triageEvent } from "../triage/triage-event.js";
import type { Schedule, ScheduleTarget } from "../triage/schedule-key.js";
import type { DashboardService } from "./dashboard/dashboard-service.js";
import { isDashboardEdit } from "./dashboard/handle-dashboard-edit.js";
import type { IntakeGate } from "./intake-gate.js";
import { loadAiderConfig } from "./load-aider-config.js";

/**
 * A delivery as an older version stored it: the text GitHub sent (`raw`), or the parsed payload (`payload`). The
 * receiver now stores the typed event it parsed; these are parsed by the edge when their job runs.
 */
export type StoredWebhook = { id: string; name: string; raw: string } | VerifiedWebhook;
/** What a triage job carries: an event typed at the edge, a schedule's tick (fired once per tick across replicas). */
export type TriageData =
  { event: BotEvent } | StoredWebhook | { tick: { key: string; target: ScheduleTarget; schedule: Schedule } };

/**
 * The triage job's handler, Probot's one use in triage: a schedule's tick fires it, a dashboard edit goes to the
 * dashboard, and every other event is triaged with its installation's Octokit (Probot's, throttled per installation)
 * and its repository's `.github/aider.yml` read as Probot reads it. `onHandled` sees every result (logs, tests).
 */
export function createTriageHandler(deps: {
  app: Pick<Probot, "auth" | "log">;
  services: AppServices;
  gate?: IntakeGate;
  fire(target: ScheduleTarget, schedule: Schedule, key: string): Promise<void>;
  dashboard(): DashboardService | null;
  onHandled?: (result: HandleResult, delivery: string) => void;
}): JobHandler<TriageData> {
  return async (job) => {
    await deps.gate?.quiet();
    if ("tick" in job.data) return deps.fire(job.data.tick.target, job.data.tick.schedule, job.data.tick.key);
    const event = "event" in job.data ? job.data.event : storedEvent(job.data, deps.app.log);
    if (!event) return;
    if (isDashboardEdit(event)) return deps.dashboard()?.edited(event);
    if (event.kind === "push" || !("installationId" in event)) return;
    const api = await deps.app.auth(event.installationId);
    const log = deps.app.log.child({ id: event.delivery });
    const loadConfig = () => loadAiderConfig(api, event.repository);
    const result = await triageEvent(event, { api, loadConfig, log }, deps.services);
    log.debug(
      { result: result.kind === "enqueued" ? { kind: result.kind, jobId: result.jobId } : result },
      "webhook triaged",
    );
    deps.onHandled?.(result, event.delivery);
  };
}

/** A delivery stored by an older version, through the edge (null, logged, when it is refused). */
function storedEvent(stored: StoredWebhook, log: Probot["log"]): BotEvent | null {
  const parsed = parseWebhook(stored.name, "payload" in stored ? stored.payload : JSON.parse(stored.raw), stored.id);
  if (parsed.ok) return parsed.event;
  if (parsed.refused) log.warn({ delivery: stored.id, reason: parsed.reason }, "webhook refused");
  return null;
}
