import type { PriorRun } from "../context/pr-data.js";

/** Was this commit pushed by the bot? Its status comments record every commit it pushed (full or short sha). */
export function pushedByBot(priorRuns: readonly PriorRun[], sha: string): boolean {
  return priorRuns.some(
    (r) =>
      r.outcome === "pushed" &&
      r.commit !== undefined &&
      r.commit.length >= 7 &&
      sha.toLowerCase().startsWith(r.commit.toLowerCase()),
  );
}
