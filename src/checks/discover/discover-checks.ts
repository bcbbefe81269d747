import { dropCoverageWrappers } from "./drop-coverage-wrappers.js";
import { implyToolInstalls } from "./imply-tool-installs.js";
import { bootstrapNightlyRust } from "./nightly-rust.js";
import { planFromConventions } from "./plan-from-conventions.js";
import { planFromLegacyCi } from "./plan-from-legacy-ci.js";
import { planFromWorkflows } from "./plan-from-workflows.js";
import { planRunnerFallbacks } from "./runner-fallbacks.js";
import type { CheckPlan, RepoReader } from "./types.js";

/**
 * The repository's check commands: its GitHub Actions workflows first; when they name no lint or test command the
 * bot can run, the conventions of its ecosystems (README "Which checks run"). The reader serves the DEFAULT branch in the App
 * (a pull request's head never decides what runs) and the local checkout in the CLI.
 */
export async function discoverChecks(reader: RepoReader): Promise<CheckPlan> {
  const plan = await discoverCommands(reader);
  // Before the implied installs: a dropped wrapper needs no install.
  dropCoverageWrappers(plan);
  await planRunnerFallbacks(plan, reader);
  implyToolInstalls(plan);
  // Last: the passes before read the commands as CI wrote them.
  bootstrapNightlyRust(plan);
  return plan;
}

async function discoverCommands(reader: RepoReader): Promise<CheckPlan> {
  // The legacy CI files are read beside the workflows (in the App, GitHub round trips), and used after them.
  const legacyP = planFromLegacyCi(reader);
  legacyP.catch(() => undefined);
  // The root's listing too: the conventions (when the workflows name no check) and the runner fallbacks read it after
  // the workflows, one GitHub round trip more on the run's way to its first round. The reader keeps the answer; where
  // nothing asks for it again, it was one request for nothing.
  reader.list("").catch(() => undefined);
  const fromWorkflows = await planFromWorkflows(reader);
  // Travis, CircleCI and GitLab CI fill what the workflows left empty, a bucket at a time (with their setup).
  for (const legacy of await legacyP) {
    const filled = (["lint", "test"] as const).filter((b) => !fromWorkflows[b].length && legacy[b].length);
    for (const b of filled) fromWorkflows[b] = legacy[b];
    if (filled.length && !fromWorkflows.setup.length) fromWorkflows.setup = legacy.setup;
    if (filled.length) for (const [t, v] of Object.entries(legacy.toolchain)) fromWorkflows.toolchain[t] ??= v;
    fromWorkflows.excluded.push(...legacy.excluded);
  }
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
