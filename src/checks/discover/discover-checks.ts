import { implyToolInstalls } from "./imply-tool-installs.js";
import { planFromConventions } from "./plan-from-conventions.js";
import { planFromWorkflows } from "./plan-from-workflows.js";
import type { CheckPlan, RepoReader } from "./types.js";

/**
 * The repository's check commands: its GitHub Actions workflows first; when they name no lint or test command the
 * bot can run, the conventions of its ecosystems (README "Which checks run"). The reader serves the DEFAULT branch in the App
 * (a pull request's head never decides what runs) and the local checkout in the CLI.
 */
export async function discoverChecks(reader: RepoReader): Promise<CheckPlan> {
  const plan = await discoverCommands(reader);
  implyToolInstalls(plan);
  return plan;
}

async function discoverCommands(reader: RepoReader): Promise<CheckPlan> {
  const fromWorkflows = await planFromWorkflows(reader);
  if (fromWorkflows.lint.length + fromWorkflows.test.length > 0) return fromWorkflows;
  const fromConventions = await planFromConventions(reader);
  return {
    setup: fromConventions.setup,
    lint: fromConventions.lint,
    test: fromConventions.test,
    // A workflow that named no usable check may still say which toolchain the project uses.
    toolchain: { ...fromConventions.toolchain, ...fromWorkflows.toolchain },
    ...(fromWorkflows.image ? { image: fromWorkflows.image } : {}),
    excluded: [...fromWorkflows.excluded, ...fromConventions.excluded],
  };
}
