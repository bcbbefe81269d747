import { Parser } from "web-tree-sitter";
import { initTreeSitter, languageForGitHubName, languageForPath } from "../treesitter/languages.js";
import { findSyntaxErrors, type SyntaxProblem } from "./find-syntax-errors.js";
import { readyLanguage } from "./ready-languages.js";
import { renderCodeContext } from "./render-code-context.js";
import { scopeRanges } from "./scope-ranges.js";
import type { CheckReport } from "./types.js";

/** Start what the first syntax check would (tree-sitter's runtime, ~0.1 s of CPU), ahead of it. */
export const warmSyntaxCheck = (): Promise<void> => initTreeSitter();

/**
 * Load the grammar of the repository's main language (as GitHub names it) and parse a line with it, so the first
 * syntax check of a file in that language pays neither the grammar's load nor V8's first compile of its code
 * (~60 ms of CPU together). A job does it while its branch is cloned, when it waits anyway. Nothing for a language
 * we do not parse; a grammar that fails to load here fails again, with its message, in the check itself.
 */
export async function warmGrammarFor(githubLanguage: string | null | undefined): Promise<void> {
  const id = languageForGitHubName(githubLanguage);
  if (!id) return;
  const language = await readyLanguage(id);
  const parser = new Parser();
  try {
    parser.setLanguage(language);
    parser.parse("x\n")?.delete();
  } finally {
    parser.delete();
  }
}

export interface SyntaxCheckOptions {
  /**
   * The file before the edit. Problems on lines that were already unparsable before are not blamed on the edit:
   * a grammar that lags the language (new syntax) must not send the model into a fix loop over valid code, the
   * reason Aider skips TypeScript altogether (#1132).
   */
  before?: string;
}

/**
 * Built-in syntax check with tree-sitter for every language we parse, TypeScript and TSX included (docs/behaviour.md#syntax-checks-and-error-locations):
 * each error's line with a short description, then the code around it with enclosing scopes (`█` marks). Null for
 * languages we don't parse.
 *
 * @example await syntaxCheck("a.ts", "f(1;\n") // { ok: false, output: "a.ts:1:4: missing `)` after `1`\n…", … }
 */
export async function syntaxCheck(
  path: string,
  content: string,
  options: SyntaxCheckOptions = {},
): Promise<CheckReport | null> {
  const id = languageForPath(path);
  if (!id) return null;
  const language = await readyLanguage(id); // also initialises web-tree-sitter, before any Parser exists
  const parser = new Parser();
  parser.setLanguage(language);
  try {
    const found = problemsIn(parser, content);
    if (!found) return null;
    const oldLines =
      options.before === undefined
        ? new Set<string>()
        : lineTexts(options.before, problemsIn(parser, options.before)?.problems ?? []);
    const problems = found.problems.filter((p) => !oldLines.has(lineText(content, p.line)));
    if (problems.length === 0) return { kind: "syntax", ok: true, command: "", output: "", locations: [] };
    const list = problems.map((p) => `${path}:${p.line}:${p.column}: ${p.message}`).join("\n");
    const context = renderCodeContext(
      content,
      problems.map((p) => p.line),
      { scopes: found.scopes },
    );
    const s = problems.length > 1 ? "s" : "";
    return {
      kind: "syntax",
      ok: false,
      command: "",
      output: `${list}\n\n## See the line${s} marked with █ below.\n\n${path}:\n${context}\n`,
      locations: problems.map((p) => ({ path, line: p.line, column: p.column, message: p.message })),
    };
  } finally {
    parser.delete();
  }
}

function problemsIn(parser: Parser, content: string) {
  const tree = parser.parse(content);
  if (!tree) return null;
  try {
    const problems = findSyntaxErrors(tree.rootNode);
    return {
      problems,
      scopes: problems.length
        ? scopeRanges(
            tree.rootNode,
            problems.map((p) => p.line),
          )
        : [],
    };
  } finally {
    tree.delete();
  }
}

function lineText(content: string, line: number): string {
  return (content.split("\n")[line - 1] ?? "").trim();
}

function lineTexts(content: string, problems: readonly SyntaxProblem[]): Set<string> {
  return new Set(problems.map((p) => lineText(content, p.line)));
}
