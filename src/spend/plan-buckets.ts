import { dayKey, monthKey, nextDayStart, nextMonthStart } from "./period-key.js";
import type { Limit, LimitScope, SpendLimits } from "./spend-limits.js";

/** Whose spend a call is: the run, its pull request or issue, its repository and installation. */
export interface SpendScope {
  installationId: number;
  owner: string;
  repo: string;
  /** Pull request or issue number; absent for a run with none (a branch), which has no pull-request bucket. */
  number?: number;
  /** The run's job id (a re-run of a crashed job keeps it, and so its spend). */
  runId: string;
}

/** One ledger bucket a call touches. */
export interface PlannedBucket {
  key: string;
  scope: LimitScope;
  limit: Limit;
  /** When the bucket's period ends (null: run and pull-request buckets never reset). */
  resetsAtMs: number | null;
  timeZone: string | null;
  /** How long the store keeps the bucket after its last write. */
  ttlMs: number;
}

const DAY = 86_400_000;

/**
 * The buckets of a call at `nowMs` (pure): keys carry the period in its time zone, so a new day or month is a new,
 * empty bucket and nothing has to be reset. Owner and repository names are lowercased (GitHub's names are
 * case-insensitive).
 *
 * @example planBuckets(scope, limits, now)[2].key // "repo/octo/app/day/2026-11-28"
 */
export function planBuckets(scope: SpendScope, limits: SpendLimits, nowMs: number): PlannedBucket[] {
  const repo = `${scope.owner}/${scope.repo}`.toLowerCase();
  const tz = limits.timeZone;
  const itz = limits.installationTimeZone;
  const l = limits.limits;
  const pr: PlannedBucket[] =
    scope.number === undefined
      ? []
      : [
          {
            key: `pr/${repo}#${scope.number}`,
            scope: "pr",
            limit: l.pr,
            resetsAtMs: null,
            timeZone: null,
            ttlMs: 400 * DAY,
          },
        ];
  return [
    { key: `run/${scope.runId}`, scope: "run", limit: l.run, resetsAtMs: null, timeZone: null, ttlMs: 7 * DAY },
    ...pr,
    {
      key: `repo/${repo}/day/${dayKey(nowMs, tz)}`,
      scope: "repo-day",
      limit: l["repo-day"],
      resetsAtMs: nextDayStart(nowMs, tz),
      timeZone: tz,
      ttlMs: 40 * DAY,
    },
    {
      key: `repo/${repo}/month/${monthKey(nowMs, tz)}`,
      scope: "repo-month",
      limit: l["repo-month"],
      resetsAtMs: nextMonthStart(nowMs, tz),
      timeZone: tz,
      ttlMs: 400 * DAY,
    },
    {
      key: `installation/${scope.installationId}/day/${dayKey(nowMs, itz)}`,
      scope: "installation-day",
      limit: l["installation-day"],
      resetsAtMs: nextDayStart(nowMs, itz),
      timeZone: itz,
      ttlMs: 40 * DAY,
    },
    {
      key: `installation/${scope.installationId}/month/${monthKey(nowMs, itz)}`,
      scope: "installation-month",
      limit: l["installation-month"],
      resetsAtMs: nextMonthStart(nowMs, itz),
      timeZone: itz,
      ttlMs: 400 * DAY,
    },
  ];
}
