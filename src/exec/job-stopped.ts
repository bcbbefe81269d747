/** Why a running job's signal was aborted: a user's `/aider cancel`, or this worker shutting down. */
export type StopReason = "cancel" | "shutdown";

/** The `signal.reason` of an aborted job; `reason` tells a cancel from a shutdown without matching text. */
export class JobStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(reason === "cancel" ? "cancelled" : "shutting down");
    this.name = "JobStopped";
  }
}

/** The stop reason of an aborted signal, or null when it is not aborted (or aborted by something else). */
export function stopReason(signal: AbortSignal): StopReason | null {
  return signal.aborted && signal.reason instanceof JobStopped ? signal.reason.reason : null;
}
