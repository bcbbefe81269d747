import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { budgetFileSchema, type BudgetFile, type OperatorBudget } from "../config/budget-schema.js";

/**
 * Read the operator's budget file (`AIDER_BOT_BUDGET_FILE`, YAML). Any problem throws with the file's path and each
 * bad key, so the app refuses to start rather than run without the limits its operator set.
 */
export async function readBudgetFile(file: string): Promise<BudgetFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new Error(
      `AIDER_BOT_BUDGET_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
    );
  }
  let raw: unknown;
  try {
    raw = parse(text) ?? {};
  } catch (error) {
    throw new Error(`AIDER_BOT_BUDGET_FILE: ${file} is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  const result = budgetFileSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`);
    throw new Error(`AIDER_BOT_BUDGET_FILE: ${file} has problems:\n- ${problems.join("\n- ")}`);
  }
  return result.data;
}

/** The operator's limits for one installation: its overrides on top of the defaults. */
export function operatorLimitsFor(file: BudgetFile | null, installationId: number): OperatorBudget {
  if (!file) return {};
  return { ...file.defaults, ...(file.installations[String(installationId)] ?? {}) };
}
