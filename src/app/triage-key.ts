import { payloadField } from "../github/payload-field.js";
import type { VerifiedWebhook } from "../security/webhook-intake.js";

/**
 * The engine key of a triage job: its thread (`triage:owner/repo#n`). Triage of different threads runs many at once;
 * within one thread it is serialised, so two quick commands from one user get one "not allowed" reply, and an
 * issue's two label events (`opened` and `labeled`, sent together) make one status comment, each finding what the
 * one before it wrote. A payload without a thread is keyed by its delivery.
 */
export function triageKey(event: VerifiedWebhook): string {
  const repo = payloadField(event.payload, "repository", "full_name");
  const number =
    payloadField(event.payload, "issue", "number") ?? payloadField(event.payload, "pull_request", "number");
  if (typeof repo === "string" && typeof number === "number") return `triage:${repo}#${number}`;
  return `triage:${event.id}`;
}
