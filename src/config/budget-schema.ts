import { z } from "zod";

const usd = () => z.number().positive().optional();
const tokens = () => z.number().int().positive().optional();

/** An IANA time zone this runtime knows (`UTC`, `Europe/Berlin`). */
const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    // Intl throws a RangeError for an unknown zone; the message below says what to write.
    return false;
  }
}, 'must be an IANA time zone such as "UTC" or "Europe/Berlin"');

/**
 * `budget` in `.github/aider.yml`: the run's limits (`max_*`, as before), the pull request's or issue's (`pr_*`), the
 * repository's per day and per month (`day_*`, `month_*`), in dollars and tokens, and the zone days and months follow.
 */
export const repoBudgetSchema = z
  .object({
    max_usd: usd(),
    max_tokens: tokens(),
    pr_usd: usd(),
    pr_tokens: tokens(),
    day_usd: usd(),
    day_tokens: tokens(),
    month_usd: usd(),
    month_tokens: tokens(),
    timezone: timeZone.optional(),
  })
  .strict();

/** The operator's limits: the repository keys plus the installation's per day and per month. */
export const operatorBudgetSchema = repoBudgetSchema
  .extend({
    installation_day_usd: usd(),
    installation_day_tokens: tokens(),
    installation_month_usd: usd(),
    installation_month_tokens: tokens(),
  })
  .strict();

/**
 * `AIDER_BOT_BUDGET_FILE`: `defaults` for every installation, and `installations` overriding them by installation id.
 *
 * @example
 * defaults: { day_usd: 20, month_usd: 200, installation_month_usd: 1000 }
 * installations: { "12345": { day_usd: 50 } }
 */
export const budgetFileSchema = z
  .object({
    defaults: operatorBudgetSchema.default({}),
    installations: z
      .record(z.string().regex(/^\d+$/, "installation ids are numbers"), operatorBudgetSchema)
      .default({}),
  })
  .strict();

export type RepoBudget = z.infer<typeof repoBudgetSchema>;
export type OperatorBudget = z.infer<typeof operatorBudgetSchema>;
export type BudgetFile = z.infer<typeof budgetFileSchema>;
