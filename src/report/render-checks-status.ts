import { renderCheckPlanMarkdown } from "../checks/discover/render-check-plan.js";
import type { CheckRunRecord, CheckRunStatus, CoderResult } from "../coder/types.js";
import { judged } from "../coder/unchecked.js";
import type { ResolvedChecks } from "../run/prepare/resolve-checks.js";

const ICON: Record<CheckRunStatus, string> = {
  passed: "✅",
  failed: "❌",
  "pre-existing": "⚠️",
  "tool-missing": "⚠️",
  "could-not-run": "⚠️",
  "not-run": "⏭️",
};
const LABEL: Record<CheckRunStatus, string> = {
  passed: "passed",
  failed: "failed",
  "pre-existing": "fails on the default branch too",
  "tool-missing": "tool missing",
  "could-not-run": "could not run",
  "not-run": "not run",
};

/** A command as CI wrote it: without the PATH entry the bot puts in front for a tool it installs (`uv`, `tox`). */
const asCi = (command: string): string =>
  command.replace(/^(?:export )?PATH="\$HOME\/\.local\/bin:\$PATH"(?: |\n)/, "");

/** Inline code that no backtick in a repository's command can end. */
function code(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ").slice(0, 200);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return longest ? `${fence} ${flat} ${fence}` : `${fence}${flat}${fence}`;
}

const ORIGIN: Record<ResolvedChecks["origin"], string> = {
  config: "The commands come from `.github/aider.yml`.",
  discovered:
    "`.github/aider.yml` names no commands, so they were found in the default branch's workflows and manifests (see them with `/aider checks`; set `setup`/`lint`/`test` or `checks: off` to change them).",
  mixed:
    "Keys set in `.github/aider.yml` were used; the others were found in the default branch's workflows and manifests (`/aider checks` shows them).",
  off: "`checks: off` in `.github/aider.yml`: only the built-in syntax check ran.",
  none: "No lint or test command was found in `.github/aider.yml` or the default branch's workflows and manifests.",
};

/**
 * What the status comment says about the repository's checks: a visible line naming the commands that
 * ran and, when no test ran on a change, why (off, none found, sandbox unavailable, tool missing), so a change pushed
 * unchecked never reads like a checked one; and a collapsible list of every command with its source and what was
 * left out, and why.
 */
export function renderChecksStatus(
  result: CoderResult,
  checks: ResolvedChecks | undefined,
  autoTest: boolean,
): { headline: string | null; details: string | null } {
  const runs = result.checkRuns ?? [];
  const changed = "editedFiles" in result && result.editedFiles.length > 0;
  const lines: string[] = [];
  // A runner's failed install is said once, on the line of the stand-in that ran in its place (the details list it).
  const stoodIn = new Set(runs.filter((r) => r.ranInstead && r.fallback).map((r) => r.fallback!.runner));
  const ran = runs.filter(
    (r) => r.status !== "not-run" && !(r.kind === "setup" && r.installsRunners?.some((t) => stoodIn.has(t))),
  );
  if (changed && ran.length)
    lines.push(
      `🧪 Checks: ${ran.map((r) => `${ICON[r.status]} ${code(asCi(r.command))}${r.ranInstead ? ` (as ${code(r.ranInstead.command)})` : ""}${r.status === "passed" || r.status === "failed" ? "" : ` (${LABEL[r.status]}${noteOf(r) ? `: ${noteOf(r)}` : ""})`}`).join(" · ")}`,
    );
  // A stand-in judged the change with the host's packages, not the project's: said every time, in so many words.
  for (const r of runs.filter((r) => r.ranInstead))
    lines.push(
      `ℹ️ ${code(asCi(r.command))} could not run here (${r.ranInstead!.why}); ran ${code(r.ranInstead!.command)} with the sandbox's Python instead — dependencies come from the host, not the project's lock file.`,
    );
  // A failure the base has too is the environment's or the base's: said as such, once per command.
  for (const r of runs.filter((r) => r.onBase))
    lines.push(
      `⚠️ ${code(r.command)} fails on the default branch too (${r.onBase}): not caused by this change${r.status === "pre-existing" ? "" : ", and nothing after it could run"}.`,
    );
  const testsRan = runs.some((r) => r.kind === "test" && judged(r));
  const anyJudged = runs.some(judged);
  // The sandbox line of the details already says when nothing could run at all.
  if (changed && !testsRan && !result.checksSkipped)
    lines.push(
      `⚠️ **No tests ran**: ${whyNoTests(runs, checks, autoTest)}. This change was not checked by the repository's tests${anyJudged ? "" : ": it is **unchecked**"}; review it before merging.`,
    );
  const body: string[] = [];
  if (checks) body.push(ORIGIN[checks.origin] + (checks.problem ? ` Discovery failed: ${checks.problem}.` : ""));
  if (runs.length)
    body.push(
      runs
        .map(
          (r) =>
            `- ${ICON[r.status]} ${code(r.command)}${r.cwd ? ` (in \`${r.cwd}/\`)` : ""} — ${LABEL[r.status]}${noteOf(r) && r.status !== "passed" ? ` (${noteOf(r)})` : ""}${r.ranInstead ? `, as ${code(r.ranInstead.command)} (${r.ranInstead.why})` : ""}${r.source ? ` · ${r.source}` : ""}${r.adapted ? ` · ${r.adapted}` : ""}`,
        )
        .join("\n"),
    );
  const left = checks?.plan.excluded ?? [];
  if (left.length)
    body.push(
      renderCheckPlanMarkdown({ setup: [], lint: [], test: [], toolchain: {}, excluded: left }).split("\n\n").at(-1)!,
    );
  const details = body.length ? `<details><summary>Checks</summary>\n\n${body.join("\n\n")}\n\n</details>` : null;
  return { headline: lines.length ? lines.join("\n\n") : null, details };
}

/** What a record's note says: why it did not pass, or what its failure on the base said. */
const noteOf = (r: CheckRunRecord): string | undefined =>
  r.status === "pre-existing" ? r.onBase : r.onBase && r.note ? `${r.note}; the same on the default branch` : r.note;

function whyNoTests(runs: CheckRunRecord[], checks: ResolvedChecks | undefined, autoTest: boolean): string {
  const test = runs.find((r) => r.kind === "test");
  if (test?.status === "pre-existing")
    return `${code(test.command)} fails on the default branch too (${test.onBase ?? "the same failure"})`;
  if (test?.status === "could-not-run")
    return `${code(test.command)} could not run here (${test.note ?? "its tool is missing"})`;
  if (test?.status === "tool-missing")
    return `${code(test.command)} could not run: its tool is missing (${test.note ?? "not installed"})`;
  if (test) return `${code(test.command)} was not run (${test.note ?? "an earlier check failed"})`;
  const earlier = runs.find((r) => r.status !== "passed");
  if (earlier && (checks?.plan.test.length ?? 0) > 0 && autoTest)
    return `${code(earlier.command)} ${LABEL[earlier.status]}${earlier.note ? ` (${earlier.note})` : ""}, so the tests did not run`;
  if (checks?.origin === "off") return "checks are off (`checks: off` in `.github/aider.yml`)";
  if (checks?.emptied?.includes("test")) return "`test: []` in `.github/aider.yml` names none";
  if (checks?.problem) return checks.problem;
  if ((checks?.plan.test.length ?? 0) > 0 && !autoTest) return "`auto_test` is off in `.github/aider.yml`";
  return "no test command was found in `.github/aider.yml` or the default branch's workflows and manifests (name one with `test:` in `.github/aider.yml`)";
}
