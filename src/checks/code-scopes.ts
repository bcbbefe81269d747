import { Parser } from "web-tree-sitter";
import { languageForPath } from "../treesitter/languages.js";
import { indentScopes } from "./indent-scopes.js";
import { loadedLanguage, readyLanguage } from "./ready-languages.js";
import { scopeRanges, type ScopeRange } from "./scope-ranges.js";

/**
 * The scopes of a file for code-context rendering, synchronously: from the syntax tree when the file's grammar is
 * loaded, else from indentation (unknown languages, or a grammar not loaded yet — see {@link preloadLanguages}).
 * `lines` (1-based), when given, limits the result to scopes enclosing them.
 */
export function codeScopes(path: string, content: string, lines?: Iterable<number>): ScopeRange[] {
  const id = languageForPath(path);
  const language = id ? loadedLanguage(id) : null;
  if (!language) return indentScopes(content);
  const parser = new Parser();
  try {
    parser.setLanguage(language);
    const tree = parser.parse(content);
    if (!tree) return indentScopes(content);
    try {
      return scopeRanges(tree.rootNode, lines);
    } finally {
      tree.delete();
    }
  } finally {
    parser.delete();
  }
}

/** Load the grammars of these paths so {@link codeScopes} can use syntax trees for them. */
export async function preloadLanguages(paths: Iterable<string>): Promise<void> {
  const ids = new Set([...paths].map(languageForPath).filter((id) => id !== null));
  await Promise.all([...ids].map(readyLanguage));
}
