/** Whether a schedule's tick starts a run (pure). */
export type TickDecision = { fire: true } | { fire: false; pr: number };

/**
 * A tick waits while the previous run's pull request is still open, so a schedule does not pile commits onto a PR
 * nobody has reviewed yet; `stack: true` in the entry runs it anyway (its commit joins that PR).
 * `decideTick({ stack: false, openPr: 12 })` → `{ fire: false, pr: 12 }`
 */
export function decideTick(args: { stack: boolean; openPr: number | null }): TickDecision {
  if (args.openPr === null || args.stack) return { fire: true };
  return { fire: false, pr: args.openPr };
}
