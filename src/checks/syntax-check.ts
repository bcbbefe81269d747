import { Parser } from "web-tree-sitter";
import { initTreeSitter, languageForGitHubName, languageForPath, type LanguageId } from "../treesitter/languages.js";
import { warmSample } from "../treesitter/warm-samples.js";
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
  // One line: this runs beside the clone, which needs the thread too; the check's file is small.
  if (id) await warmGrammar(id, "x\n");
}

/** Languages warmed (or being warmed) in this process, each once. */
const warming = new Map<LanguageId, Promise<void>>();

/** Load a grammar and parse `text` with it (by default a few lines of its language, see warm-samples), once per process. */
function warmGrammar(id: LanguageId, text = warmSample(id)): Promise<void> {
  let warm = warming.get(id);
  if (!warm) {
    warm = (async () => {
      const language = await readyLanguage(id);
      const parser = new Parser();
      try {
        parser.setLanguage(language);
        parser.parse(text)?.delete();
      } finally {
        parser.delete();
      }
    })();
    warming.set(id, warm);
    // A grammar that failed to load is tried again by the next warm-up (and reported by the check itself).
    warm.catch(() => {
      if (warming.get(id) === warm) warming.delete(id);
    });
  }
  return warm;
}

/** Most grammars {@link warmGrammarsOf} loads ahead: each costs a few megabytes and some CPU off the run's path. */
const MAX_WARMED = 3;

/**
 * Warm the grammars the run's syntax check is likely to need, from the checkout's files: the languages of
 * `first` (the files in the chat, those the request names), then the languages with the most files, at most
 * {@link MAX_WARMED} in all. The repository's main language alone misses files of another one an edit often
 * touches (a JavaScript package's `.d.ts`, a C++ project's `.c`): their check loaded a grammar on the run's path
 * (~50 ms for TypeScript). Settles when all have loaded; a grammar that fails is left to the check to report.
 */
export function warmGrammarsOf(files: readonly string[], first: readonly string[] = []): Promise<void> {
  const counts = new Map<LanguageId, number>();
  for (const f of files) {
    const id = languageForPath(f);
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const named = first.map(languageForPath).filter((id): id is LanguageId => id !== null);
  const common = [...counts].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  const chosen = [...new Set([...named, ...common])].slice(0, MAX_WARMED);
  return Promise.all(chosen.map((id) => warmGrammar(id).catch(() => undefined))).then(() => undefined);
}

/** The warm-up of a language's grammar when one was started in this process (tests), else null. */
export function grammarWarming(id: LanguageId): Promise<void> | null {
  return warming.get(id) ?? null;
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
