import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { languageForPath } from "../treesitter/languages.js";
import type { TagExtractor } from "./extract-tags.js";
import { contentHash, type CachedFile, type FileStat, type TagCache } from "./tag-cache.js";
import type { FileTags } from "./types.js";

export interface LoadFileTagsOptions {
  root: string;
  files: readonly string[];
  extractor: TagExtractor;
  cache: TagCache | null;
  /** Content from elsewhere (e.g. unsaved edits); then stat is not trusted and every file is hashed. */
  readFile?: (relPath: string) => Promise<string | null>;
  maxFileBytes: number;
}

export interface LoadedTags {
  /** Files with tags, in the order of `files`, each with its content hash and its tags (decoded on demand). */
  byFile: Map<string, CachedFile>;
  parsed: number;
  cacheHits: number;
}

/** Files read at once: enough to hide I/O latency, few enough not to hold many file contents in memory. */
const CONCURRENCY = 32;

/**
 * Tags of every file we have a parser for: from the cache when size+mtime (or else the content hash) match,
 * otherwise parsed and stored. Binary (NUL bytes) and oversized files are skipped. The result keeps the order of
 * `files` whatever order the work finished in, so the ranking built on it does not depend on timing.
 */
export async function loadFileTags(options: LoadFileTagsOptions): Promise<LoadedTags> {
  const { root, extractor, cache, maxFileBytes } = options;
  const queue = options.files.filter((f) => languageForPath(f) !== null);
  const found: (CachedFile | null)[] = new Array<CachedFile | null>(queue.length).fill(null);
  let parsed = 0;
  let cacheHits = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const i = next++;
      const rel = queue[i];
      const stat = options.readFile ? null : statOf(path.join(root, rel));
      if (!options.readFile && (!stat || stat.size > maxFileBytes)) continue;
      const fromStat = stat && cache ? cache.byStat(rel, stat) : null;
      if (fromStat) {
        cacheHits++;
        found[i] = fromStat;
        continue;
      }
      const content = options.readFile ? await options.readFile(rel) : readText(path.join(root, rel));
      if (content === null || content.length > maxFileBytes || content.includes("\0")) continue;
      const hash = contentHash(content);
      const fromHash = cache ? cache.byHash(rel, hash, stat) : null;
      if (fromHash) {
        cacheHits++;
        found[i] = fromHash;
        continue;
      }
      const tags = await extractor.extract(rel, content);
      if (!tags) continue;
      parsed++;
      cache?.store(rel, hash, stat, tags);
      found[i] = parsedFile(hash, tags);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  const byFile = new Map<string, CachedFile>();
  found.forEach((f, i) => f && byFile.set(queue[i], f));
  return { byFile, parsed, cacheHits };
}

function parsedFile(hash: string, tags: FileTags): CachedFile {
  return { hash, tags: () => tags.tags, fileTags: () => tags };
}

// Synchronous on purpose: thousands of tiny stats and reads through the libuv pool cost several times more than
// doing them in line (measured in bench/repomap-bench.ts); each blocks for microseconds only.
function statOf(abs: string): FileStat | null {
  try {
    // No exception object for a missing file: cheaper when many listed files are gone.
    const s = statSync(abs, { throwIfNoEntry: false });
    return s?.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
}

function readText(abs: string): string | null {
  try {
    return readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}
