import path from "node:path";
import { countTokens, loadTokenizer } from "../llm/count-tokens.js";
import { createTagExtractor, type TagExtractor } from "./extract-tags.js";
import { filterByIgnoreText, filterIgnored } from "./filter-ignored.js";
import { fitMeasured } from "./fit-to-budget.js";
import { loadFileTags, type LoadedTags } from "./load-file-tags.js";
import { createMapMeasure } from "./map-measure.js";
import { rankLazily, type Ranking } from "./rank-tags.js";
import { attachLexicalIndex, requestRelevance, type RequestContext } from "./request-relevance.js";
import { contentStateKey, openTagCache, type CachedFile, type TagCache } from "./tag-cache.js";
import { buildTagGraphFromColumns, type TagGraph } from "./tag-graph.js";

export interface BuildRepoMapOptions {
  root: string;
  /** Repo-relative files, already git-filtered (see `listRepoFiles`); `.aiderignore` is applied here. */
  files: readonly string[];
  /** Files in the chat: they steer the ranking and are left out of the map. */
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
  /**
   * What the request is about (its text, hint files, the checkout's recent history): files relevant to it are
   * ranked first (docs/behaviour.md#ranking). Absent, the ranking is Aider's.
   */
  request?: RequestContext;
  /** Token budget (default 1024); 0 disables the map. */
  mapTokens?: number;
  /** Where tags are cached (default `<root>/.aider-bot-cache/tags`); `null` for no disk cache. */
  cacheDir?: string | null;
  /**
   * Content ids of files git vouches for (`gitContentIds`): those found in the cache are neither read nor
   * stat'ed, so a fresh clone of a repository seen before costs no file reads.
   */
  contentIds?: ReadonlyMap<string, string>;
  /**
   * With `contentIds` taken from git's index before git has looked at the work tree (`gitIndexContentIds`): the
   * files git then finds modified. Meanwhile the map is built from the cache alone; it is rebuilt without the ids of
   * modified files when it used any. When an id is not in the cache, the build waits for git instead.
   */
  modifiedSinceIds?: Promise<ReadonlySet<string> | null>;
  /**
   * The files are not written yet (see `buildRepoMapFromObjects`): what the cache lacks is read from git's objects by
   * its id in `contentIds`, never from disk.
   */
  objects?: (ids: readonly string[]) => Promise<ReadonlyMap<string, Uint8Array>>;
  /** Read a file's content (default: from disk under root). When given, mtimes are not trusted. */
  readFile?: (relPath: string) => Promise<string | null>;
  /** Reuse parsers across builds (the caller disposes it); a fresh one is made and freed otherwise. */
  extractor?: TagExtractor;
  maxFileBytes?: number;
  /** Worker threads for parsing many files (default: cores − 1, at most 7; 0 for none). */
  threads?: number;
}

export interface RepoMap {
  text: string;
  /** Every ranked file best first (chat files excluded), also those that did not fit the budget. */
  rankedFiles: string[];
  /** The files the map text shows (with definitions or by name), in rank order. */
  shownFiles: string[];
  stats: {
    parsed: number;
    cacheHits: number;
    files: number;
    tokens: number;
    ms: number;
    /** Worker threads that parsed alongside this one (0: none were needed or allowed). */
    threads: number;
    /** Milliseconds per phase: open (ignore rules, cache index), tags, graph, save, rank+fit. */
    phases: Record<"open" | "tags" | "graph" | "save" | "rank", number>;
  };
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
    const phases = { open: 0, tags: 0, graph: 0, save: 0, rank: 0 };
    return {
      text: "",
      rankedFiles: [],
      shownFiles: [],
      stats: { parsed: 0, cacheHits: 0, files: 0, tokens: 0, ms: 0, threads: 0, phases },
    };
  }
  const files = (await filterIgnored(options.root, options.files)).filter((f) => !f.startsWith(".aider-bot-cache/"));
  const cacheDir = options.cacheDir === undefined ? path.join(options.root, DEFAULT_CACHE_SUBDIR) : options.cacheDir;
  const [cache] = await Promise.all([cacheDir ? openTagCache(cacheDir) : null, loadTokenizer()]);
  try {
    // Not early, the map is always built (null only comes from an early build).
    const full = async (o: BuildRepoMapOptions) =>
      (await mapWith(o, files, cache, mapTokens, started, false)) as RepoMap;
    const pending = options.modifiedSinceIds;
    if (!pending || !options.contentIds || options.readFile) return await full(options);
    // Git is still checking the work tree: build from the cache meanwhile, and keep that map if git vouches for
    // every id it used.
    const early = await mapWith(options, files, cache, mapTokens, started, true);
    const modified = await pending;
    if (early && modified && ![...modified].some((f) => options.contentIds?.has(f))) {
      await cache?.save();
      // Its time includes the wait for git.
      return { ...early, stats: { ...early.stats, ms: performance.now() - started } };
    }
    const contentIds = modified ? new Map([...options.contentIds].filter(([f]) => !modified.has(f))) : undefined;
    return await full({ ...options, contentIds });
  } finally {
    cache?.close();
  }
}

/**
 * The map of a checkout whose files git is still writing (see PendingCheckout), from git alone: the commit's tree
 * gives the files and their ids (`files`, `contentIds`), tags come from the cache by id, and what the cache lacks, and
 * `.aiderignore`, from git's objects (`objects`). That is the map `buildRepoMap` makes once the files are written
 * (their tags are cached by the same ids). Null when it cannot be made so — a file git gives no id for (a link), a
 * blob it does not give back: the caller builds it from the written files.
 */
export async function buildRepoMapFromObjects(
  options: BuildRepoMapOptions & Required<Pick<BuildRepoMapOptions, "contentIds" | "objects">>,
): Promise<RepoMap | null> {
  const started = performance.now();
  const mapTokens = options.mapTokens ?? 1024;
  if (mapTokens <= 0 || options.readFile) {
    const { objects: _objects, ...fromFiles } = options;
    return buildRepoMap(fromFiles);
  }
  let ignoreText: string | null = null;
  if (options.files.includes(".aiderignore")) {
    const id = options.contentIds.get(".aiderignore");
    const got = id ? (await options.objects([id])).get(id) : undefined;
    if (!got) return null;
    ignoreText = Buffer.from(got.buffer, got.byteOffset, got.byteLength).toString("utf8");
  }
  const files = filterByIgnoreText(ignoreText, options.files).filter((f) => !f.startsWith(".aider-bot-cache/"));
  const cacheDir = options.cacheDir === undefined ? path.join(options.root, DEFAULT_CACHE_SUBDIR) : options.cacheDir;
  const [cache] = await Promise.all([cacheDir ? openTagCache(cacheDir) : null, loadTokenizer()]);
  try {
    return await mapWith(options, files, cache, mapTokens, started, false);
  } finally {
    cache?.close();
  }
}

/** The map; with `early`, from the cache only and not saved, or null when an id was not in the cache. */
async function mapWith(
  options: BuildRepoMapOptions,
  files: string[],
  cache: TagCache | null,
  mapTokens: number,
  started: number,
  early: boolean,
): Promise<RepoMap | null> {
  const chatFiles = options.chatFiles ?? [];
  let lap = started;
  const phase = (): number => -lap + (lap = performance.now());
  const opened = phase();
  const extractor = options.extractor ?? createTagExtractor();
  let loaded: LoadedTags | null;
  try {
    loaded = await loadFileTags({
      root: options.root,
      files: [...new Set([...files, ...chatFiles])],
      extractor,
      cache,
      readFile: options.readFile,
      contentIds: options.contentIds,
      cachedIdsOnly: early,
      ...(options.objects ? { objects: options.objects } : {}),
      maxFileBytes: options.maxFileBytes ?? 1_000_000,
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
    });
  } finally {
    if (!options.extractor) extractor.dispose();
  }
  if (!loaded) return null;
  const tagsMs = phase();
  const graph = tagGraph(loaded, cache, files);
  const graphMs = phase();
  if (!early) await cache?.save();
  const saveMs = phase();

  const mentionedFiles = options.mentionedFiles ?? [];
  const rankWith = (chat: readonly string[]): Ranking => {
    const relevance = options.request
      ? requestRelevance(graph, files, options.request, { chatFiles: chat, mentionedFiles })
      : null;
    return rankLazily(graph, {
      files,
      chatFiles: chat,
      mentionedFiles,
      mentionedIdents: options.mentionedIdents,
      ...(relevance ? { relevance } : {}),
    });
  };
  let ranked = rankWith(chatFiles);
  let fitted = fit(ranked, loaded, new Set(chatFiles), mapTokens);
  if (!fitted.text && chatFiles.length > 0) {
    // As Aider: when the chat files leave nothing to show, map the whole repo instead.
    ranked = rankWith([]);
    fitted = fit(ranked, loaded, new Set(), mapTokens);
  }
  return {
    text: fitted.text,
    // After the fallback the ranking includes the chat files; they are never suggested.
    rankedFiles: ranked.files.filter((f) => !chatFiles.includes(f)),
    shownFiles: [...new Set(fitted.chosen.map((e) => e.relPath))].filter((f) => !chatFiles.includes(f)),
    stats: {
      parsed: loaded.parsed,
      cacheHits: loaded.cacheHits,
      files: files.length,
      threads: loaded.threads,
      tokens: fitted.tokens,
      ms: performance.now() - started,
      phases: { open: opened, tags: tagsMs, graph: graphMs, save: saveMs, rank: phase() },
    },
  };
}

/**
 * The ranking graph for the loaded tags: the cached one when the content state (files and hashes, in order) is the
 * one it was built for, else built from every file's tags and stored (with the lexical index of `files`). A warm
 * build thus never decodes the tags.
 */
function tagGraph(loaded: LoadedTags, cache: TagCache | null, files: readonly string[]): TagGraph {
  const key = contentStateKey([...loaded.byFile].map(([relPath, f]) => ({ relPath, hash: f.hash })));
  const cached = cache?.graph(key);
  if (cached) {
    // A graph cached before its lexical index existed gets it once, stored with it.
    if (attachLexicalIndex(cached, files)) cache?.storeGraph(key, cached);
    return cached;
  }
  // With the lexical index of the files for the request-aware ranking, cached with it (once per content state).
  const graph = buildTagGraphFromColumns([...loaded.byFile].map(([relPath, f]) => ({ relPath, columns: f.columns() })));
  attachLexicalIndex(graph, files);
  cache?.storeGraph(key, graph);
  return graph;
}

/** Fit the ranked entries to the budget; only the files whose blocks are measured get their detail decoded. */
function fit(ranked: Ranking, loaded: LoadedTags, chat: Set<string>, mapTokens: number) {
  const tags = {
    has: (f: string) => loaded.byFile.has(f),
    get: (f: string) => (loaded.byFile.get(f) as CachedFile).fileTags(),
  };
  return fitMeasured(ranked, mapTokens, createMapMeasure(ranked, tags, chat, mapTokens, countTokens));
}
