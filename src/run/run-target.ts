import type { RunTarget } from "./run-request.js";

/**
 * The number of the issue or pull request a run belongs to; undefined for a run on a branch without a pull request,
 * which has no thread to comment on, react to or read context from (never a made-up 0).
 */
export function threadNumber(target: RunTarget): number | undefined {
  return target.kind === "branch" ? undefined : target.number;
}

/** How logs, titles and summaries name a run's target: `#12`, or the branch (`` `feature` ``) when it has no thread. */
export function targetLabel(target: RunTarget): string {
  return target.kind === "branch" ? `\`${target.headRef}\`` : `#${target.number}`;
}
