import type { PriorRun } from "../context/pr-data.js";
import { isJsonObject, payloadField } from "../github/payload-field.js";

/** The facts of a `check_suite.completed` payload that {@link decideAutofix} needs (pure; tolerant of missing fields). */
export interface CheckSuiteFacts {
  conclusion: string | null;
  headSha: string;
  suiteAppId: number;
  /** Pull requests of this repository whose head is the suite's commit (GitHub leaves forks' PRs out). */
  pullNumbers: number[];
}

export function readCheckSuite(payload: unknown): CheckSuiteFacts | null {
  const suite = payloadField(payload, "check_suite");
  if (!isJsonObject(suite)) return null;
  const headSha = suite.head_sha;
  if (typeof headSha !== "string") return null;
  const repoId = payloadField(payload, "repository", "id");
  const prs: unknown[] = Array.isArray(suite.pull_requests) ? suite.pull_requests : [];
  return {
    conclusion: typeof suite.conclusion === "string" ? suite.conclusion : null,
    headSha,
    suiteAppId: Number(payloadField(suite, "app", "id") ?? 0),
    pullNumbers: prs.flatMap((p) => {
      const number = payloadField(p, "number");
      const ours =
        payloadField(p, "head", "sha") === headSha &&
        (repoId === undefined || payloadField(p, "base", "repo", "id") === repoId);
      return typeof number === "number" && ours ? [number] : [];
    }),
  };
}

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
