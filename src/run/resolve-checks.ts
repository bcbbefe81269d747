import { discoverChecks } from "../checks/discover/discover-checks.js";
import { emptyPlan, type CheckPlan, type PlannedCommand, type RepoReader } from "../checks/discover/types.js";
import type { CheckCommandSpec } from "../coder/types.js";
import type { RunSettings } from "./run-request.js";

export type { CheckPlan, PlannedCommand, RepoReader } from "../checks/discover/types.js";
// github/ and app/ reach discovery through here (they may not import checks/ themselves).
export { discoverChecks } from "../checks/discover/discover-checks.js";
export { renderCheckPlanMarkdown } from "../checks/discover/render-check-plan.js";

/** The commands a run uses and where they came from (issue #30). */
export interface ResolvedChecks {
  /**
   * `config`: every command is from `.github/aider.yml`; `discovered`: from the default branch's workflows or
   * manifests; `mixed`: both (a key set in the config replaces what discovery found for it); `off`: `checks: off` and
   * nothing configured; `none`: discovery found nothing to run.
   */
  origin: "config" | "discovered" | "mixed" | "off" | "none";
  plan: CheckPlan;
  /** Discovery could not read the repository (the message says why); configured commands still run. */
  problem?: string;
}

const CONFIG = ".github/aider.yml";

/**
 * The run's check plan: the keys `.github/aider.yml` sets win, each bucket on its own; the others come from
 * {@link discoverChecks} over `reader` (the DEFAULT branch) unless `checks: off`. Never throws: a repository that
 * cannot be read leaves the configured commands and says why.
 */
export async function resolveChecks(
  settings: Pick<RunSettings, "setup" | "lint" | "test" | "tests" | "checks">,
  reader: RepoReader | null,
): Promise<ResolvedChecks> {
  const configured = emptyPlan();
  configured.setup = settings.setup.map((command) => ({ command, source: `${CONFIG} \`setup\`` }));
  configured.lint = settings.lint.map((command) => ({ command, source: `${CONFIG} \`lint\`` }));
  configured.test = (settings.tests ?? (settings.test ? [settings.test] : [])).map((command) => ({
    command,
    source: `${CONFIG} \`test\``,
  }));
  const anyConfigured = configured.setup.length + configured.lint.length + configured.test.length > 0;
  const allConfigured = configured.lint.length > 0 && configured.test.length > 0;
  if (settings.checks === "off" || !reader || allConfigured) {
    return { origin: anyConfigured ? "config" : settings.checks === "off" ? "off" : "none", plan: configured };
  }
  let found: CheckPlan;
  try {
    found = await discoverChecks(reader);
  } catch (error) {
    const problem = `the repository's workflows and manifests could not be read (${error instanceof Error ? error.message : String(error)})`;
    return { origin: anyConfigured ? "config" : "none", plan: configured, problem };
  }
  const plan: CheckPlan = {
    ...found,
    setup: configured.setup.length ? configured.setup : found.setup,
    lint: configured.lint.length ? configured.lint : found.lint,
    test: configured.test.length ? configured.test : found.test,
  };
  const fromDiscovery = (["setup", "lint", "test"] as const).some((b) => !configured[b].length && found[b].length);
  const origin = fromDiscovery ? (anyConfigured ? "mixed" : "discovered") : anyConfigured ? "config" : "none";
  return { origin, plan };
}

/** The plan as the coder runs it: discovered commands run exactly as written (no edited files appended). */
export function checkSpecsOf(resolved: ResolvedChecks): CheckCommandSpec[] {
  const spec = (kind: CheckCommandSpec["kind"]) => (c: PlannedCommand) => ({
    kind,
    command: c.command,
    source: c.source,
    ...(c.cwd ? { cwd: c.cwd } : {}),
    ...(c.source.startsWith(CONFIG) ? {} : { asWritten: true }),
  });
  return [
    ...resolved.plan.setup.map(spec("setup")),
    ...resolved.plan.lint.map(spec("lint")),
    ...resolved.plan.test.map(spec("test")),
  ];
}
