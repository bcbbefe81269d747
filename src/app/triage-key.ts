import type { VerifiedWebhook } from "../security/webhook-intake.js";

/**
 * The engine key of a triage job. Triage runs many at once, each delivery on its own key; only an issue's label
 * events share one (`opened` and `labeled` arrive together for an issue created with the label, and the second
 * must find the first's status comment rather than race it).
 */
export function triageKey(event: VerifiedWebhook): string {
  const p = event.payload as { repository?: { full_name?: unknown }; issue?: { number?: unknown } } | null;
  if (event.name === "issues" && typeof p?.repository?.full_name === "string" && typeof p.issue?.number === "number") {
    return `triage:${p.repository.full_name}#${p.issue.number}`;
  }
  return `triage:${event.id}`;
}
