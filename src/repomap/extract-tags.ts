import { Query, type Parser } from "web-tree-sitter";
import { createParser, languageForPath, loadLanguage, type LanguageId } from "../treesitter/languages.js";
import { createContextFinder, lineStarts, type ContextFinder } from "./def-contexts.js";
import { TAG_QUERIES } from "./tag-queries.js";
import { warmSample } from "../treesitter/warm-samples.js";
import type { FileTags, Tag } from "./types.js";

/** Rendered map lines are cut to this many characters, so stored rows need no more. */
const MAX_ROW_CHARS = 100;

/** Parses files and runs our tag queries with this thread's parser and compiled query per language (see {@link tagTools}). */
export interface TagExtractor {
  /** Tags of one file, or null when its language is not one we parse. Trees with syntax errors still yield tags. */
  extract(relPath: string, content: string): Promise<FileTags | null>;
  /** Nothing left to free: the parsers and queries are the thread's, kept for its next build (see {@link tagTools}). */
  dispose(): void;
}

interface LanguageTools {
  parser: Parser;
  query: Query;
}

/**
 * Each language's parser and compiled tag query, made once per thread and kept for its life. Compiling a query
 * costs 20–90 ms of CPU (Python, TypeScript), as much as parsing dozens of files, and every map build used to
 * compile its own; a job process builds the map at least once, the CLI and a worker thread many times. The WASM
 * memory they hold (a parser and a query per language) is small and bounded by the languages we parse. A failed
 * load is not kept: the next extraction tries again and reports its own error.
 */
const tools = new Map<LanguageId, Promise<LanguageTools>>();
let compiledQueries = 0;

function tagTools(id: LanguageId): Promise<LanguageTools> {
  let made = tools.get(id);
  if (!made) {
    made = (async () => {
      const language = await loadLanguage(id);
      const query = new Query(language, TAG_QUERIES[id]);
      compiledQueries++;
      const parser = await createParser(id);
      return { parser, query };
    })();
    tools.set(id, made);
    made.catch(() => {
      if (tools.get(id) === made) tools.delete(id);
    });
  }
  return made;
}

/** How many tag queries this thread has compiled (each language's once; see {@link tagTools}). */
export function compiledTagQueries(): number {
  return compiledQueries;
}

/**
 * Make ready what this thread's first extraction in a language pays for: the grammar, its parser, the compiled tag
 * query, and V8's first compile of the code a parse and a query run — a few lines of ordinary code in that language
 * (see warm-samples) are extracted. A job does it for the repository's main language while its branch is cloned,
 * so a cold map does not start by compiling.
 */
export async function warmTagTools(id: LanguageId): Promise<void> {
  await extractIn(id, "warm-up", warmSample(id));
}

/** Tags of `content` as a file of language `id`, with this thread's tools. */
async function extractIn(id: LanguageId, relPath: string, content: string): Promise<FileTags | null> {
  // Parsing and querying are synchronous from here on: builds sharing these tools never interleave inside one.
  const { parser, query } = await tagTools(id);
  const tree = parser.parse(content);
  if (!tree) return null;
  try {
    const starts = lineStarts(content);
    return collect(relPath, content, starts, query.captures(tree.rootNode), createContextFinder(tree, starts));
  } finally {
    tree.delete();
  }
}

/**
 * Create a tag extractor. Example:
 * `const x = createTagExtractor(); const ft = await x.extract("src/a.ts", code); x.dispose();`
 */
export function createTagExtractor(): TagExtractor {
  return {
    async extract(relPath, content) {
      const id = languageForPath(relPath);
      return id ? extractIn(id, relPath, content) : null;
    },
    dispose() {
      // The tools are the thread's (see tagTools): nothing of this extractor's own to free.
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
