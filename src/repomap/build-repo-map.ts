import path from "node:path";
import { countTokens, loadTokenizer } from "../llm/count-tokens.js";
import { createTagExtractor, type TagExtractor } from "./extract-tags.js";
import { filterIgnored } from "./filter-ignored.js";
import { fitToBudget } from "./fit-to-budget.js";
import { loadFileTags } from "./load-file-tags.js";
import { rankTags } from "./rank-tags.js";
import { renderMap } from "./render-map.js";
import { openTagCache } from "./tag-cache.js";
import type { FileTags, RankedEntry } from "./types.js";

export interface BuildRepoMapOptions {
  root: string;
  /** Repo-relative files, already git-filtered (see `listRepoFiles`); `.aiderignore` is applied here. */
  files: readonly string[];
  /** Files in the chat: they steer the ranking and are left out of the map. */
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
  /** Token budget (default 1024); 0 disables the map. */
  mapTokens?: number;
  /** Where tags are cached (default `<root>/.aider-bot-cache/tags`); `null` for no disk cache. */
  cacheDir?: string | null;
  /** Read a file's content (default: from disk under root). When given, mtimes are not trusted. */
  readFile?: (relPath: string) => Promise<string | null>;
  /** Reuse parsers across builds (the caller disposes it); a fresh one is made and freed otherwise. */
  extractor?: TagExtractor;
  maxFileBytes?: number;
}

export interface RepoMap {
  text: string;
  /** Every ranked file best first (chat files excluded), also those that did not fit the budget. */
  rankedFiles: string[];
  stats: { parsed: number; cacheHits: number; files: number; tokens: number; ms: number };
}

/** Cache directory used when none is given. */
export const DEFAULT_CACHE_SUBDIR = path.join(".aider-bot-cache", "tags");

/**
 * Build the repo map: tags (cached by content), ranking towards the chat and the request's mentions, the best
 * definitions rendered within `mapTokens`. Example:
 * `const { text } = await buildRepoMap({ root, files: await listRepoFiles(root), mentionedIdents: ["parseConfig"] })`.
 */
export async function buildRepoMap(options: BuildRepoMapOptions): Promise<RepoMap> {
  const started = performance.now();
  const mapTokens = options.mapTokens ?? 1024;
  if (mapTokens <= 0) {
    return { text: "", rankedFiles: [], stats: { parsed: 0, cacheHits: 0, files: 0, tokens: 0, ms: 0 } };
  }
  const files = (await filterIgnored(options.root, options.files)).filter((f) => !f.startsWith(".aider-bot-cache/"));
  const chatFiles = options.chatFiles ?? [];
  const cacheDir = options.cacheDir === undefined ? path.join(options.root, DEFAULT_CACHE_SUBDIR) : options.cacheDir;
  const [cache] = await Promise.all([cacheDir ? openTagCache(cacheDir) : null, loadTokenizer()]);
  const extractor = options.extractor ?? createTagExtractor();
  let loaded;
  try {
    loaded = await loadFileTags({
      root: options.root,
      files: [...new Set([...files, ...chatFiles])],
      extractor,
      cache,
      readFile: options.readFile,
      maxFileBytes: options.maxFileBytes ?? 1_000_000,
    });
  } finally {
    if (!options.extractor) extractor.dispose();
  }
  await cache?.save();

  const tags = [...loaded.byFile.values()].flatMap((ft) => ft.tags);
  const rankWith = (chat: readonly string[]): RankedEntry[] =>
    rankTags({ tags, files, chatFiles: chat, mentionedFiles: options.mentionedFiles, mentionedIdents: options.mentionedIdents });
  let ranked = rankWith(chatFiles);
  let fitted = fit(ranked, loaded.byFile, new Set(chatFiles), mapTokens);
  if (!fitted.text && chatFiles.length > 0) {
    // As Aider: when the chat files leave nothing to show, map the whole repo instead.
    ranked = rankWith([]);
    fitted = fit(ranked, loaded.byFile, new Set(), mapTokens);
  }
  const chat = new Set(chatFiles);
  const rankedFiles = [...new Set(ranked.map((e) => e.relPath))].filter((f) => !chat.has(f));
  return {
    text: fitted.text,
    rankedFiles,
    stats: {
      parsed: loaded.parsed,
      cacheHits: loaded.cacheHits,
      files: files.length,
      tokens: fitted.tokens,
      ms: performance.now() - started,
    },
  };
}

function fit(ranked: RankedEntry[], byFile: Map<string, FileTags>, chat: Set<string>, mapTokens: number) {
  return fitToBudget(ranked, (chosen) => renderMap(chosen, byFile, chat), mapTokens, countTokens);
}
