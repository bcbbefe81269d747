import { codeScopes } from "./code-scopes.js";
import { renderCodeContext } from "./render-code-context.js";
import type { ScopeRange } from "./scope-ranges.js";
import type { CheckLocation, CheckReport } from "./types.js";

export interface CheckReflectionOptions {
  /** Files whose code context is shown, at most (first reported first). */
  maxFiles?: number;
  /** Marked lines per file, at most. */
  maxLinesPerFile?: number;
  /** Scopes of a file for the context headers; defaults to the syntax tree when loaded, else indentation. */
  scopes?: (path: string, content: string, lines: ReadonlySet<number>) => ScopeRange[];
}

type Contents = ReadonlyMap<string, string> | ((path: string) => string | null);

/** Stack frames in dependencies are not code the model should edit. */
const NOT_OURS = /(^|\/)(node_modules|site-packages|dist-packages|\.venv|venv|vendor|\.git)\//;

/**
 * The LLM-facing reflection for a failed check, Aider's shape (docs/behaviour.md#failed-checks, docs/behaviour.md#checks/docs/behaviour.md#failed-checks) in our words:
 * which check failed and how, its output, then for each reported location in a file we can read the code around
 * it with `█` on the reported lines, and what to do. The syntax check's output already carries its context.
 * `contents` is a map or a reader (null = unknown file); nothing else is read.
 *
 * @example renderCheckReflection(report, new Map([["src/a.ts", code]]))
 */
export function renderCheckReflection(
  report: CheckReport,
  contents: Contents,
  options: CheckReflectionOptions = {},
): string {
  const read = typeof contents === "function" ? contents : (p: string) => contents.get(p) ?? null;
  if (report.kind === "syntax") {
    return `# The syntax check failed on the edited code\n\n${report.output.trimEnd()}\n\nFix these syntax errors.`;
  }
  const parts = [`# ${titleOf(report)}`];
  if (report.environmentError || report.timedOut) {
    // No code context: the command never judged the code (or could not finish), so the output is the whole story.
    parts.push(report.output.trim());
    return parts.join("\n\n");
  }
  const output =
    report.output.trim() ||
    `(it printed nothing${report.exitCode != null ? ` and exited with code ${report.exitCode}` : ""})`;
  parts.push(`Its output:\n\n${fenced(output)}`);
  const contexts = renderContexts(report.locations, read, options);
  if (contexts.length > 0) parts.push(`## The code at the reported lines, marked with █:\n\n${contexts.join("\n\n")}`);
  if (report.preExistingTests?.length)
    parts.push(
      `These failing tests failed on the default branch before this change too; they are not yours to fix unless the request is about them:\n${report.preExistingTests
        .slice(0, 20)
        .map((t) => `- ${t}`)
        .join("\n")}`,
    );
  parts.push(
    report.kind === "test"
      ? "Fix the code so the tests pass. Change a test only when the test itself is wrong."
      : "Fix the errors reported above, changing only what they concern.",
  );
  return parts.join("\n\n");
}

function titleOf(report: CheckReport): string {
  const what = report.kind === "syntax" ? "lint" : report.kind;
  const exit = typeof report.exitCode === "number" ? ` (exit code ${report.exitCode})` : "";
  return `The ${what} command \`${report.command}\` failed${exit}`;
}

function renderContexts(
  locations: readonly CheckLocation[],
  read: (path: string) => string | null,
  options: CheckReflectionOptions,
): string[] {
  const byFile = new Map<string, Set<number>>();
  for (const loc of locations) {
    if (NOT_OURS.test(loc.path)) continue;
    if (!byFile.has(loc.path) && byFile.size >= (options.maxFiles ?? 5)) continue;
    const lines = byFile.get(loc.path) ?? new Set<number>();
    if (lines.size < (options.maxLinesPerFile ?? 10)) lines.add(loc.line);
    byFile.set(loc.path, lines);
  }
  const out: string[] = [];
  for (const [path, lines] of byFile) {
    const content = read(path);
    if (content === null) continue;
    const scopes = (options.scopes ?? codeScopes)(path, content, lines);
    const context = renderCodeContext(content, lines, { scopes });
    if (context) out.push(`${path}:\n${fenced(context)}`);
  }
  return out;
}

/** A fence longer than any backtick run inside, so tool output with Markdown in it cannot close it early. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}
