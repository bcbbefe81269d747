import { discoverChecks } from "../../checks/discover/discover-checks.js";
import { emptyPlan, type CheckPlan, type PlannedCommand, type RepoReader } from "../../checks/discover/types.js";
import type { CheckCommandSpec } from "../../coder/types.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { CheckBucket, RunSettings } from "../run-request.js";

/** The commands a run uses and where they came from. */
export interface ResolvedChecks {
  /**
   * `config`: every command is from `.github/aider.yml`; `discovered`: from the default branch's workflows or
   * manifests; `mixed`: both (a key set in the config replaces what discovery found for it); `off`: `checks: off` and
   * nothing configured; `none`: discovery found nothing to run.
   */
  origin: "config" | "discovered" | "mixed" | "off" | "none";
  plan: CheckPlan;
  /** Kinds `.github/aider.yml` set to an empty list: none of them ran or was discovered. */
  emptied?: CheckBucket[];
  /** Discovery could not read the repository (the message says why); configured commands still run. */
  problem?: string;
}

const CONFIG = ".github/aider.yml";
const BUCKETS: readonly CheckBucket[] = ["setup", "lint", "test"];

/** The check settings a run takes from the repository's config, the same for every driver and for `checks` (pure). */
export type CheckSettings = Pick<RunSettings, "setup" | "lint" | "test" | "tests" | "checks" | "emptied">;

/**
 * The check keys of `.github/aider.yml` as run settings (pure): an absent key is left to discovery; a key set to an
 * empty list (`lint: []`) means no command of that kind, and none discovered for it.
 */
export function checkSettingsOf(config: Pick<RepoConfig, "setup" | "lint" | "test" | "checks">): CheckSettings {
  const emptied = BUCKETS.filter((b) => config[b]?.length === 0);
  return {
    setup: config.setup ?? [],
    lint: config.lint ?? [],
    ...(config.test?.length ? { test: config.test[0], tests: config.test } : {}),
    checks: config.checks,
    ...(emptied.length ? { emptied } : {}),
  };
}

/**
 * The run's check plan: the keys `.github/aider.yml` sets win, each bucket on its own (an empty list: none); the
 * others come from {@link discoverChecks} over `reader` (the DEFAULT branch in the App, the checkout in the CLI)
 * unless `checks: off`. Never throws: a repository that cannot be read leaves the configured commands and says why.
 */
export async function resolveChecks(settings: CheckSettings, reader: RepoReader | null): Promise<ResolvedChecks> {
  const configured = emptyPlan();
  configured.setup = settings.setup.map((command) => ({ command, source: `${CONFIG} \`setup\`` }));
  configured.lint = settings.lint.map((command) => ({ command, source: `${CONFIG} \`lint\`` }));
  configured.test = (settings.tests ?? (settings.test ? [settings.test] : [])).map((command) => ({
    command,
    source: `${CONFIG} \`test\``,
  }));
  const emptied = settings.emptied ?? [];
  // A bucket is decided by the config when it names commands there or sets the key to an empty list.
  const decided = (b: CheckBucket) => configured[b].length > 0 || emptied.includes(b);
  const anyConfigured = BUCKETS.some(decided);
  const noted = emptied.length ? { emptied: [...emptied] } : {};
  if (settings.checks === "off" || !reader || (decided("lint") && decided("test"))) {
    const origin = anyConfigured ? "config" : settings.checks === "off" ? "off" : "none";
    return { origin, plan: configured, ...noted };
  }
  let found: CheckPlan;
  try {
    found = await discoverChecks(reader);
  } catch (error) {
    const problem = `the repository's workflows and manifests could not be read (${error instanceof Error ? error.message : String(error)})`;
    return { origin: anyConfigured ? "config" : "none", plan: configured, ...noted, problem };
  }
  const plan: CheckPlan = {
    ...found,
    setup: decided("setup") ? configured.setup : found.setup,
    lint: decided("lint") ? configured.lint : found.lint,
    test: decided("test") ? configured.test : found.test,
  };
  const fromDiscovery = BUCKETS.some((b) => !decided(b) && found[b].length);
  const origin = fromDiscovery ? (anyConfigured ? "mixed" : "discovered") : anyConfigured ? "config" : "none";
  return { origin, plan, ...noted };
}

/** The plan as the coder runs it: discovered commands run exactly as written (no edited files appended). */
export function checkSpecsOf(resolved: ResolvedChecks): CheckCommandSpec[] {
  const spec = (kind: CheckCommandSpec["kind"]) => (c: PlannedCommand) => ({
    kind,
    command: c.command,
    source: c.source,
    ...(c.cwd ? { cwd: c.cwd } : {}),
    ...(c.source.startsWith(CONFIG) ? {} : { asWritten: true }),
    ...(c.note ? { adapted: c.note } : {}),
    ...(c.fallback ? { fallback: c.fallback } : {}),
    ...(c.installsRunners ? { installsRunners: c.installsRunners } : {}),
    ...(c.tool ? { tool: c.tool } : {}),
  });
  return [
    ...resolved.plan.setup.map(spec("setup")),
    ...resolved.plan.lint.map(spec("lint")),
    ...resolved.plan.test.map(spec("test")),
  ];
}
