import { Query, type Parser } from "web-tree-sitter";
import { createParser, languageForPath, loadLanguage, type LanguageId } from "../treesitter/languages.js";
import { createContextFinder, type ContextFinder } from "./def-contexts.js";
import { TAG_QUERIES } from "./tag-queries.js";
import type { FileTags, Tag } from "./types.js";

/** Rendered map lines are cut to this many characters, so stored rows need no more. */
const MAX_ROW_CHARS = 100;

/** Parses files and runs our tag queries; holds one parser and one compiled query per language. */
export interface TagExtractor {
  /** Tags of one file, or null when its language is not one we parse. Trees with syntax errors still yield tags. */
  extract(relPath: string, content: string): Promise<FileTags | null>;
  /** Free the parsers and queries (WASM memory is not garbage-collected). */
  dispose(): void;
}

interface LanguageTools {
  parser: Parser;
  query: Query;
}

/**
 * Create a tag extractor. Example:
 * `const x = createTagExtractor(); const ft = await x.extract("src/a.ts", code); x.dispose();`
 */
export function createTagExtractor(): TagExtractor {
  const tools = new Map<LanguageId, Promise<LanguageTools>>();
  const toolsFor = (id: LanguageId): Promise<LanguageTools> => {
    let t = tools.get(id);
    if (!t) {
      t = (async () => ({ parser: await createParser(id), query: new Query(await loadLanguage(id), TAG_QUERIES[id]) }))();
      tools.set(id, t);
    }
    return t;
  };
  return {
    async extract(relPath, content) {
      const id = languageForPath(relPath);
      if (!id) return null;
      const { parser, query } = await toolsFor(id);
      const tree = parser.parse(content);
      if (!tree) return null;
      const contexts = createContextFinder(tree);
      try {
        return collect(relPath, content, query.captures(tree.rootNode), contexts);
      } finally {
        contexts.dispose();
        tree.delete();
      }
    },
    dispose() {
      for (const t of tools.values()) {
        void t.then(({ parser, query }) => {
          parser.delete();
          query.delete();
        });
      }
      tools.clear();
    },
  };
}

type Capture = ReturnType<Query["captures"]>[number];

function collect(relPath: string, content: string, captures: Capture[], finder: ContextFinder): FileTags {
  const lines = content.split("\n");
  const tags: Tag[] = [];
  const contexts: Record<number, number[]> = {};
  const rows: Record<number, string> = {};
  // A node can match a def pattern and a catch-all ref pattern (`(type_identifier) @ref`), or two def patterns:
  // keep one tag per node and kind, and never count a definition's own name as a reference.
  const defNodes = new Set<number>();
  const seen = new Set<number>();
  for (const c of captures) if (c.name.startsWith("def")) defNodes.add(c.node.startIndex);
  for (const c of captures) {
    const kind = c.name.startsWith("def") ? "def" : c.name.startsWith("ref") ? "ref" : null;
    if (!kind) continue;
    const start = c.node.startIndex;
    if (kind === "ref" && defNodes.has(start)) continue;
    const key = 2 * start + (kind === "def" ? 1 : 0);
    if (seen.has(key)) continue;
    seen.add(key);
    const line = c.node.startPosition.row;
    tags.push({ relPath, name: c.node.text, kind, line });
    if (kind === "def" && !contexts[line]) {
      contexts[line] = finder.rowsFor(c.node);
      for (const r of contexts[line]) {
        for (const n of [r - 1, r, r + 1]) {
          if (n >= 0 && n < lines.length) rows[n] ??= lines[n].replace(/\r$/, "").slice(0, MAX_ROW_CHARS);
        }
      }
    }
  }
  // A final newline ends the last line rather than starting an empty one.
  const lineCount = lines.length > 0 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
  return { relPath, tags, contexts, rows, lineCount };
}
