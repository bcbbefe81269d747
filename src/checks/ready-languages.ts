import type { Language } from "web-tree-sitter";
import { loadLanguage, type LanguageId } from "../treesitter/languages.js";

/**
 * Grammars already loaded, reachable synchronously. Loading is async (wasm), but parsing is not: once the syntax
 * check (or {@link preloadLanguages}) has loaded a file's grammar, the synchronous reflection renderer can use the
 * tree for scope headers instead of guessing from indentation.
 */
const ready = new Map<LanguageId, Language>();

/** Load a grammar and remember it for synchronous use. */
export async function readyLanguage(id: LanguageId): Promise<Language> {
  const language = await loadLanguage(id);
  ready.set(id, language);
  return language;
}

/** The grammar when it is already loaded, else null. */
export function loadedLanguage(id: LanguageId): Language | null {
  return ready.get(id) ?? null;
}
