import type { PriorRun } from "../context/pr-data.js";

/** The facts of a `check_suite.completed` payload that {@link decideAutofix} needs (pure; tolerant of missing fields). */
export interface CheckSuiteFacts {
  conclusion: string | null;
  headSha: string;
  suiteAppId: number;
  /** Pull requests of this repository whose head is the suite's commit (GitHub leaves forks' PRs out). */
  pullNumbers: number[];
}

export function readCheckSuite(payload: unknown): CheckSuiteFacts | null {
  const suite = (payload as { check_suite?: Record<string, unknown> } | null)?.check_suite;
  if (!suite || typeof suite.head_sha !== "string") return null;
  const repoId = (payload as { repository?: { id?: unknown } }).repository?.id;
  const prs = Array.isArray(suite.pull_requests)
    ? (suite.pull_requests as {
        number?: unknown;
        head?: { sha?: unknown; repo?: { id?: unknown } };
        base?: { repo?: { id?: unknown } };
      }[])
    : [];
  return {
    conclusion: typeof suite.conclusion === "string" ? suite.conclusion : null,
    headSha: suite.head_sha,
    suiteAppId: Number((suite.app as { id?: unknown } | undefined)?.id ?? 0),
    pullNumbers: prs
      .filter(
        (p) =>
          typeof p.number === "number" &&
          p.head?.sha === suite.head_sha &&
          (repoId === undefined || p.base?.repo?.id === repoId),
      )
      .map((p) => p.number as number),
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
