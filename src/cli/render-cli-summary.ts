import type { CoderResult } from "../coder/types.js";
import { summarizeFailures } from "../edits/reflection.js";

/** The human summary `aider-bot run` prints: outcome, files, commit, reflections, tokens and cost. */
export function renderCliSummary(r: CoderResult): string {
  const lines: string[] = [];
  const cost = r.costUsd === null ? "" : `, $${r.costUsd.toFixed(4)}`;
  const usage = `${r.reflections} reflection${r.reflections === 1 ? "" : "s"}, ${r.tokens.prompt} prompt + ${r.tokens.completion} completion tokens${cost}, ${(r.elapsedMs / 1000).toFixed(1)} s`;
  switch (r.outcome) {
    case "changed":
      lines.push(
        r.commit
          ? `Committed ${r.commit.sha.slice(0, 7)} ${r.commit.subject}`
          : "Changed files (not committed: --no-commit)",
      );
      for (const f of r.editedFiles) lines.push(`  ${f.path} +${f.added} -${f.removed}`);
      break;
    case "no-changes":
      lines.push("No changes were made.", "", r.answer.trim());
      break;
    case "edit-failed":
      lines.push("The model's edits could not be applied:", summarizeFailures(r.failures));
      break;
    case "checks-failed":
      lines.push(
        `The ${r.report.kind} check still fails after the reflections (changes left uncommitted):`,
        r.report.output.trim(),
      );
      break;
    default:
      lines.push(`${r.outcome}: ${r.message}`);
  }
  if (r.shell.length) lines.push("", "Suggested shell commands (not run):", ...r.shell.map((s) => `  ${s}`));
  lines.push("", usage);
  return `${lines.join("\n")}\n`;
}
