import { createParser, languageForPath } from "../treesitter/languages.js";
import { findSyntaxErrors } from "./find-syntax-errors.js";
import { renderCodeContext } from "./render-code-context.js";
import { scopeRanges } from "./scope-ranges.js";
import type { CheckReport } from "./types.js";

/**
 * Built-in syntax check with tree-sitter for every language we parse, TypeScript and TSX included (AIDER.md A.15):
 * each error's line and a short description, plus the code around it. Null for languages we don't parse.
 */
export async function syntaxCheck(path: string, content: string): Promise<CheckReport | null> {
  const lang = languageForPath(path);
  if (!lang) return null;
  const parser = await createParser(lang);
  const tree = parser.parse(content);
  try {
    if (!tree) return null;
    const problems = findSyntaxErrors(tree.rootNode);
    if (problems.length === 0) return { kind: "syntax", ok: true, command: "", output: "", locations: [] };
    const context = renderCodeContext(content, problems.map((p) => p.line), scopeRanges(tree.rootNode));
    const list = problems.map((p) => `${path}:${p.line}:${p.column}: ${p.message}`).join("\n");
    return {
      kind: "syntax",
      ok: false,
      command: "",
      output: `${list}\n\n${path}:\n${context}`,
      locations: problems.map((p) => ({ path, line: p.line, column: p.column, message: p.message })),
    };
  } finally {
    tree?.delete();
    parser.delete();
  }
}
