/** Why a running job was told to stop: a user's `/aider cancel`, or the worker shutting down. */
export type StopReason = "cancel" | "shutdown";

/**
 * The typed reason of an aborted job signal. The job engine aborts with an error whose `reason` field is the
 * {@link StopReason}; anything else that aborts the signal counts as a cancel (the run stops, nothing is pushed).
 * Null when the signal is not aborted.
 */
export function stopReasonOf(signal: AbortSignal): StopReason | null {
  if (!signal.aborted) return null;
  const reason = (signal.reason as { reason?: unknown } | null | undefined)?.reason;
  return reason === "shutdown" ? "shutdown" : "cancel";
}
