/** One cap: micro-dollars and/or tokens; an absent field is no cap. Money is counted in integer micro-dollars so sums never drift. */
export interface Limit {
  usdMicros?: number;
  tokens?: number;
}

/** Where a limit applies. `run` and `pr` never reset; the others reset at their period's end in their time zone. */
export type LimitScope = "run" | "pr" | "repo-day" | "repo-month" | "installation-day" | "installation-month";

export const LIMIT_SCOPES: readonly LimitScope[] = [
  "run",
  "pr",
  "repo-day",
  "repo-month",
  "installation-day",
  "installation-month",
];

export interface SpendLimits {
  limits: Record<LimitScope, Limit>;
  /** Days and months of the repository's limits. */
  timeZone: string;
  /** Days and months of the installation's limits (the operator's zone: one installation, one calendar). */
  installationTimeZone: string;
}

/** The limit keys of `.github/aider.yml`'s `budget` and of the operator's budget file, as parsed (dollars, tokens). */
export interface BudgetKeys {
  max_usd?: number | undefined;
  max_tokens?: number | undefined;
  pr_usd?: number | undefined;
  pr_tokens?: number | undefined;
  day_usd?: number | undefined;
  day_tokens?: number | undefined;
  month_usd?: number | undefined;
  month_tokens?: number | undefined;
  installation_day_usd?: number | undefined;
  installation_day_tokens?: number | undefined;
  installation_month_usd?: number | undefined;
  installation_month_tokens?: number | undefined;
  timezone?: string | undefined;
}

const KEYS: Record<LimitScope, { usd: keyof BudgetKeys; tokens: keyof BudgetKeys }> = {
  run: { usd: "max_usd", tokens: "max_tokens" },
  pr: { usd: "pr_usd", tokens: "pr_tokens" },
  "repo-day": { usd: "day_usd", tokens: "day_tokens" },
  "repo-month": { usd: "month_usd", tokens: "month_tokens" },
  "installation-day": { usd: "installation_day_usd", tokens: "installation_day_tokens" },
  "installation-month": { usd: "installation_month_usd", tokens: "installation_month_tokens" },
};

/** Dollars to integer micro-dollars (rounded up: a cost is never under-counted). */
export function toMicros(usd: number): number {
  return Math.ceil(Math.round(usd * 1e9) / 1e3);
}

export function fromMicros(micros: number): number {
  return micros / 1e6;
}

const lower = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/**
 * The limits of one run: the operator's (the budget file's defaults, then the installation's overrides on top) and
 * the repository's `budget`, the lower of the two for each key. A repository can lower a limit, never raise or lift
 * the operator's. The installation's limits come from the operator alone.
 *
 * @example resolveLimits({ day_usd: 10 }, { day_usd: 50, timezone: "Europe/Berlin" }).limits["repo-day"] // { usdMicros: 10_000_000 }
 */
export function resolveLimits(operator: BudgetKeys, repo: BudgetKeys): SpendLimits {
  const limits = {} as Record<LimitScope, Limit>;
  for (const scope of LIMIT_SCOPES) {
    const own = scope.startsWith("installation") ? {} : repo;
    const usd = lower(num(operator[KEYS[scope].usd]), num(own[KEYS[scope].usd]));
    const tokens = lower(num(operator[KEYS[scope].tokens]), num(own[KEYS[scope].tokens]));
    limits[scope] = {
      ...(usd !== undefined ? { usdMicros: toMicros(usd) } : {}),
      ...(tokens !== undefined ? { tokens } : {}),
    };
  }
  const installationTimeZone = operator.timezone ?? "UTC";
  return { limits, timeZone: repo.timezone ?? installationTimeZone, installationTimeZone };
}

function num(v: BudgetKeys[keyof BudgetKeys]): number | undefined {
  return typeof v === "number" ? v : undefined;
}

/** Whether any limit is set at all (none: the run needs no ledger). */
export function hasLimits(limits: SpendLimits): boolean {
  return LIMIT_SCOPES.some((s) => limits.limits[s].usdMicros !== undefined || limits.limits[s].tokens !== undefined);
}
