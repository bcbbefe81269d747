import type { BotEvent } from "../edge/bot-event.js";

/**
 * The engine key of a triage job: its thread (`triage:owner/repo#n`). Triage of different threads runs many at once;
 * within one thread it is serialised, so two quick commands from one user get one "not allowed" reply, and an
 * issue's two label events (`opened` and `labeled`, sent together) make one status comment, each finding what the
 * one before it wrote. An event without a thread (a check suite) is keyed by its delivery.
 */
export function triageKey(event: BotEvent): string {
  if ("thread" in event) return `triage:${event.repository.fullName}#${event.thread.number}`;
  return `triage:${event.delivery}`;
}
