import { Query, type Parser } from "web-tree-sitter";
import { createParser, languageForPath, loadLanguage, type LanguageId } from "../treesitter/languages.js";
import { createContextFinder, lineStarts, type ContextFinder } from "./def-contexts.js";
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
      t = (async () => ({
        parser: await createParser(id),
        query: new Query(await loadLanguage(id), TAG_QUERIES[id]),
      }))();
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
      try {
        const starts = lineStarts(content);
        return collect(relPath, content, starts, query.captures(tree.rootNode), createContextFinder(tree, starts));
      } finally {
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

function collect(
  relPath: string,
  content: string,
  starts: Int32Array,
  captures: Capture[],
  finder: ContextFinder,
): FileTags {
  const tags: Tag[] = [];
  const contexts: Record<number, number[]> = {};
  const rows: Record<number, string> = {};
  // A final newline ends the last line rather than starting an empty one.
  const lineCount = content.endsWith("\n") ? starts.length - 1 : starts.length;
  const rowText = (n: number): string => {
    const start = starts[n] ?? content.length;
    const next = starts[n + 1];
    const end = next === undefined ? content.length : next - 1;
    const text = content.slice(start, Math.min(end, start + MAX_ROW_CHARS + 1));
    return (text.endsWith("\r") ? text.slice(0, -1) : text).slice(0, MAX_ROW_CHARS);
  };
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
    tags.push({ relPath, name: content.slice(start, c.node.endIndex), kind, line });
    if (kind === "def" && !contexts[line]) {
      contexts[line] = finder.rowsFor(c.node);
      for (const r of contexts[line]) {
        for (let n = Math.max(0, r - 1); n <= r + 1 && n < starts.length; n++) rows[n] ??= rowText(n);
      }
    }
  }
  return { relPath, tags, contexts, rows, lineCount };
}
