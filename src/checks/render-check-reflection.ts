import { renderCodeContext } from "./render-code-context.js";
import type { CheckReport } from "./types.js";

const TITLES: Record<CheckReport["kind"], string> = { syntax: "The syntax check", lint: "The lint command", test: "The test command" };

/**
 * The LLM-facing text for a failed check (AIDER.md §3/§4): which check failed, its output, and the code around
 * each reported location in the files we know (at most 5), then the request to fix it.
 */
export function renderCheckReflection(report: CheckReport, contents: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  const what = report.command ? `${TITLES[report.kind]} \`${report.command}\`` : TITLES[report.kind];
  parts.push(`# ${what} failed`);
  parts.push(`\`\`\`\n${report.output.trim()}\n\`\`\``);
  const byFile = new Map<string, number[]>();
  for (const loc of report.locations) {
    if (!contents.has(loc.path) || report.kind === "syntax") continue;
    byFile.set(loc.path, [...(byFile.get(loc.path) ?? []), loc.line]);
  }
  for (const [path, lines] of [...byFile].slice(0, 5)) {
    parts.push(`## ${path}\n\`\`\`\n${renderCodeContext(contents.get(path)!, lines)}\n\`\`\``);
  }
  parts.push(report.kind === "test" ? "Fix the code so the tests pass. Don't change the tests unless they are wrong." : "Fix these errors.");
  return parts.join("\n\n");
}
