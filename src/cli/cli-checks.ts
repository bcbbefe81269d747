import { parse } from "yaml";
import type { CheckCommandSpec } from "../coder/types.js";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { RunSettings } from "../run/run-request.js";
import { checkSpecsOf, resolveChecks, type ResolvedChecks } from "../run/prepare/resolve-checks.js";
import { createLocalRepoReader } from "../workspace/local-repo-reader.js";
import { UsageError } from "./exit-code.js";

const CONFIG = ".github/aider.yml";

/** The checkout's `.github/aider.yml`, parsed (null when it has none); an invalid one is a {@link UsageError}. */
export async function readCheckoutConfig(root: string): Promise<RepoConfig | null> {
  const text = await createLocalRepoReader(root).read(CONFIG);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    const why = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new UsageError(`${CONFIG} is not valid YAML: ${why}`);
  }
  const config = parseRepoConfig(raw);
  if (!config.ok)
    throw new UsageError(
      `${CONFIG} is invalid:\n${config.problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`,
    );
  return config.config;
}

/** What the CLI's flags say about the checks; each one set wins over the checkout's config. */
export interface CliCheckFlags {
  lintCmd?: readonly string[];
  testCmd?: string;
  /** `--checks off`: only the commands named (flags or config), nothing discovered. */
  checks?: "auto" | "off";
}

/**
 * The check keys of a CLI run's config (pure): the checkout's `.github/aider.yml` keys (`setup`, `lint`, `test`,
 * `checks`, `auto_test`), with the flags on top. What is named neither way is discovered from the checkout, as the App
 * discovers it from the default branch.
 */
export function cliCheckKeys(
  checkout: RepoConfig | null,
  flags: CliCheckFlags,
): Pick<RepoConfig, "setup" | "lint" | "test" | "checks" | "auto_test"> {
  const lint = flags.lintCmd?.length ? [...flags.lintCmd] : checkout?.lint;
  const test = flags.testCmd ? [flags.testCmd] : checkout?.test;
  return {
    ...(checkout?.setup ? { setup: checkout.setup } : {}),
    ...(lint ? { lint } : {}),
    ...(test ? { test } : {}),
    checks: flags.checks ?? checkout?.checks ?? "auto",
    ...(checkout?.auto_test !== undefined ? { auto_test: checkout.auto_test } : {}),
  };
}

/**
 * The commands a CLI run uses, resolved as the App resolves them (`resolveChecks`) but over the local checkout;
 * `aider-bot checks` prints exactly this. Commands from a flag are named by it.
 */
export async function resolveCliChecks(
  root: string,
  settings: Pick<RunSettings, "setup" | "lint" | "test" | "tests" | "checks" | "emptied">,
  flags: CliCheckFlags,
): Promise<ResolvedChecks> {
  const resolved = await resolveChecks(settings, createLocalRepoReader(root));
  const byFlag = (bucket: "lint" | "test", flag: string, given: boolean) =>
    given ? resolved.plan[bucket].map((c) => ({ ...c, source: `${flag} (command line)` })) : resolved.plan[bucket];
  return {
    ...resolved,
    plan: {
      ...resolved.plan,
      lint: byFlag("lint", "--lint-cmd", Boolean(flags.lintCmd?.length)),
      test: byFlag("test", "--test-cmd", Boolean(flags.testCmd)),
    },
  };
}

/** The plan as the coder runs it: a flag's lint command gets the edited files appended, as a configured one does. */
export function cliCheckSpecs(resolved: ResolvedChecks): CheckCommandSpec[] {
  return checkSpecsOf(resolved).map((spec) => {
    if (!spec.source?.endsWith("(command line)")) return spec;
    const { asWritten: _written, ...configured } = spec;
    return configured;
  });
}

/** The plan in a few progress lines: each command with its kind and source, or why there are none. */
export function renderCliChecks(resolved: ResolvedChecks, autoTest: boolean): string[] {
  if (resolved.origin === "off") return ["checks: off (only the built-in syntax check runs)"];
  const lines = (["setup", "lint", "test"] as const).flatMap((kind) =>
    resolved.plan[kind].map(
      (c) =>
        `${kind}: ${c.command}${c.cwd ? ` (in ${c.cwd}/)` : ""} — ${c.source}${kind === "test" && !autoTest ? " (not run: auto-test is off)" : ""}`,
    ),
  );
  if (resolved.problem) lines.push(`discovery failed: ${resolved.problem}`);
  return lines.length ? lines : ["checks: none found (only the built-in syntax check runs)"];
}
