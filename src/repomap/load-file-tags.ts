import { lstatSync } from "node:fs";
import { languageForPath } from "../treesitter/languages.js";
import { createConfinedReader } from "../workspace/confined-reader.js";
import type { TagExtractor } from "./extract-tags.js";
import { defaultThreads, type ExtractorPool } from "./extractor-pool.js";
import { leaseExtractorPool, sharedPoolRunning, type PoolLease } from "./shared-extractor-pool.js";
import { encodeFileTags, lazyFileTags, tagColumns } from "./tag-blob.js";
import { contentHash, type CachedFile, type FileStat, type TagCache } from "./tag-cache.js";
import type { FileTags } from "./types.js";

export interface LoadFileTagsOptions {
  root: string;
  files: readonly string[];
  extractor: TagExtractor;
  cache: TagCache | null;
  /** Content from elsewhere (e.g. unsaved edits); then stat is not trusted and every file is hashed. */
  readFile?: (relPath: string) => Promise<string | null>;
  /**
   * Content ids (git blob ids, see `contentHash`) of files whose content is known without reading them — a clean
   * checkout's, from `gitContentIds`. A listed file found in the cache is neither read nor stat'ed.
   */
  contentIds?: ReadonlyMap<string, string>;
  /** Git has not confirmed `contentIds` yet: give up (null) rather than read a file whose id the cache lacks. */
  cachedIdsOnly?: boolean;
  /**
   * The work tree is not written yet: what the cache lacks is read from git's objects by its id (`contentIds`), all
   * in one call. A file with no id (a link: only the written work tree says what it leads to) or a blob git does not
   * give back gives up (null); nothing is read from disk.
   */
  objects?: (ids: readonly string[]) => Promise<ReadonlyMap<string, Uint8Array>>;
  maxFileBytes: number;
  /** Worker threads for parsing when many files need it (default: cores − 1, at most 7); 0 parses in this thread. */
  threads?: number;
}

export interface LoadedTags {
  /** Files with tags, in the order of `files`, each with its content hash and its tags (decoded on demand). */
  byFile: Map<string, CachedFile>;
  parsed: number;
  cacheHits: number;
  /** Worker threads that parsed (0 when this thread parsed everything). */
  threads: number;
}

/** Fewer files than this to parse are not worth sending to workers (each loads its own parsers). */
const MIN_PARALLEL = 64;
/**
 * With the default thread count and no shared pool running in this process, fewer files than this to parse (as far
 * as the rest of the list could still bring) are not worth starting one for. A worker's start (its thread, the
 * tree-sitter runtime, each grammar and query, V8's first compile of their code) costs about as much as parsing
 * several hundred files; a job process builds its first map with none running, and its own thread is warm (see
 * warmTagTools). Measured on a 65-file Python repository in a fresh process: 362–406 ms on this thread alone, 491–567
 * ms with a worker started for it.
 */
const MIN_COLD_POOL = 400;
/** Jobs queued per worker, so none waits for the next one. */
const WINDOW = 32;
/** This thread lets worker answers in every this many of its own parses. */
const YIELD_EVERY = 2;
/** While reading, this thread lets worker answers in (and sends more files) every this many files read. */
const READ_YIELD_EVERY = 32;

interface ParseJob {
  index: number;
  relPath: string;
  content: string;
  hash: string;
  stat: FileStat | null;
}

/**
 * Tags of every file we have a parser for: from the cache when size+mtime (or else the content hash) match,
 * otherwise parsed and stored. Binary (NUL bytes) and oversized files are skipped. When many files need parsing,
 * worker threads start as soon as that is known and take files while this thread is still reading the rest; then
 * this thread parses alongside them. The result keeps the order of `files` whatever order the work finished in,
 * so the ranking built on it does not depend on timing.
 */
export async function loadFileTags(options: LoadFileTagsOptions & { cachedIdsOnly: true }): Promise<LoadedTags | null>;
export async function loadFileTags(
  options: LoadFileTagsOptions & { objects: NonNullable<LoadFileTagsOptions["objects"]> },
): Promise<LoadedTags | null>;
export async function loadFileTags(options: LoadFileTagsOptions): Promise<LoadedTags>;
export async function loadFileTags(options: LoadFileTagsOptions): Promise<LoadedTags | null> {
  const { root, cache, maxFileBytes } = options;
  const queue = options.files.filter((f) => languageForPath(f) !== null);
  const found: (CachedFile | null)[] = new Array<CachedFile | null>(queue.length).fill(null);
  let cacheHits = 0;
  let parsed = 0;
  const done = (job: ParseJob, blob: Uint8Array | null, tags: FileTags | undefined, copy: boolean): void => {
    if (!blob) return;
    // A copy of a file parsed in this run was not parsed itself: as with the cache, its content was known.
    if (copy) cacheHits++;
    else parsed++;
    cache?.store(job.relPath, job.hash, job.stat, blob);
    found[job.index] = tags ? parsedFile(job.hash, tags) : lazyFileTags(job.relPath, job.hash, itself, blob);
  };
  const parser = createParseQueue(options, done);
  // Committed links may lead to `/outside/file` or `/proc/self/environ`: file content comes only from the confined
  // reader, which follows a link only to a regular file inside the checkout (and never into `.git`).
  const reader = createConfinedReader(root, { maxBytes: maxFileBytes });
  const readBytes = (rel: string): Buffer | null => {
    const got = reader.read(rel);
    return got.ok ? got.content : null;
  };
  try {
    const known = options.readFile ? undefined : options.contentIds;
    let sinceYield = 0;
    const fromObjects: { index: number; relPath: string; id: string }[] = [];
    for (const [i, rel] of queue.entries()) {
      const id = known?.get(rel);
      const fromId = id && cache ? cache.byHash(rel, id, null) : null;
      if (fromId) {
        cacheHits++;
        found[i] = fromId;
        continue;
      }
      if (id && options.cachedIdsOnly) return null;
      if (options.objects) {
        if (!id) return null;
        fromObjects.push({ index: i, relPath: rel, id });
        continue;
      }
      const entry = options.readFile ? null : statOf(`${root}/${rel}`);
      if (!options.readFile && (!entry || (entry !== LINK && entry.size > maxFileBytes))) continue;
      // A committed link keys no cache entry by size and time (its own are not its content's); the confined reader
      // below decides whether its target may be read at all.
      const stat = entry === LINK ? null : entry;
      // Git named other content than the cache holds for this path: its size and mtime prove nothing.
      const fromStat = stat && cache && !id ? cache.byStat(rel, stat) : null;
      if (fromStat) {
        cacheHits++;
        found[i] = fromStat;
        continue;
      }
      const bytes = options.readFile ? await options.readFile(rel) : readBytes(rel);
      if (bytes === null || bytes.length > maxFileBytes) continue;
      const content = typeof bytes === "string" ? bytes : bytes.toString("utf8");
      if (content.includes("\0")) continue;
      // Git's id where it vouches for the content (a checkout with `eol` conversion has other bytes on disk).
      const hash = id ?? contentHash(bytes);
      // A git id was looked up above already; only a hash of our own can still find a cached copy.
      const fromHash = cache && !id ? cache.byHash(rel, hash, stat) : null;
      if (fromHash) {
        cacheHits++;
        found[i] = fromHash;
        continue;
      }
      parser.add({ index: i, relPath: rel, content, hash, stat }, queue.length - i - 1);
      // Reading is synchronous: without a pause the workers would finish their first files and wait for the rest.
      if (parser.threads() > 0 && ++sinceYield >= READ_YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (options.objects && fromObjects.length) {
      const blobs = await options.objects(fromObjects.map((f) => f.id));
      for (const [k, f] of fromObjects.entries()) {
        const bytes = blobs.get(f.id);
        if (!bytes) return null;
        if (bytes.length > maxFileBytes) continue;
        const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
        if (content.includes("\0")) continue;
        // Keyed by git's id, as a file read from a checkout git vouches for is.
        parser.add({ index: f.index, relPath: f.relPath, content, hash: f.id, stat: null }, fromObjects.length - k - 1);
      }
    }
    await parser.finish();
  } finally {
    parser.dispose();
  }
  const byFile = new Map<string, CachedFile>();
  for (const [i, rel] of queue.entries()) {
    const f = found[i];
    if (f) byFile.set(rel, f);
  }
  return { byFile, parsed, cacheHits, threads: parser.threads() };
}

/**
 * Files waiting to be parsed. Once {@link MIN_PARALLEL} have come, the process's shared worker threads (started on
 * first use, see `leaseExtractorPool`) are sent files as they come; `finish` parses the rest in this thread while the
 * workers keep going, then waits for them. Files with the same content are parsed once.
 */
function createParseQueue(
  options: LoadFileTagsOptions,
  done: (job: ParseJob, blob: Uint8Array | null, tags: FileTags | undefined, copy: boolean) => void,
) {
  const jobs: ParseJob[] = [];
  const copies = new Map<string, ParseJob[]>();
  let next = 0;
  let pool: ExtractorPool | null = null;
  let lease: PoolLease | null = null;
  // Set when the load ends (also by an error): late answers from the shared workers are then dropped, not stored.
  let stopped = false;
  const sent: Promise<void>[] = [];
  const finished = (job: ParseJob, blob: Uint8Array | null, tags?: FileTags): void => {
    if (stopped) return;
    done(job, blob, tags, false);
    for (const copy of copies.get(job.hash) ?? []) {
      done(
        copy,
        blob,
        tags && { ...tags, relPath: copy.relPath, tags: tags.tags.map((t) => ({ ...t, relPath: copy.relPath })) },
        true,
      );
    }
  };
  const here = async (job: ParseJob): Promise<void> => {
    const tags = await options.extractor.extract(job.relPath, job.content);
    finished(job, tags ? encodeFileTags(tags) : null, tags ?? undefined);
  };
  const send = (): void => {
    for (let job = jobs[next]; pool && !stopped && pool.pending < pool.threads * WINDOW && job; job = jobs[next]) {
      next++;
      // A worker that could not start or died hands its job back to this thread.
      sent.push(
        pool
          .extract(job.relPath, job.content)
          .then((blob) => (stopped ? undefined : blob === undefined ? here(job) : finished(job, blob)))
          .then(send),
      );
    }
  };
  return {
    /** `later`: how many files after this one may still be added. */
    add(job: ParseJob, later: number): void {
      const same = copies.get(job.hash);
      if (same) {
        same.push(job);
        return;
      }
      copies.set(job.hash, []);
      jobs.push(job);
      if (!pool && jobs.length >= MIN_PARALLEL) {
        const threads = options.threads ?? defaultThreads();
        // Files that may still need parsing: those queued, and every one not looked at yet.
        const mayParse = jobs.length + later;
        const worthIt = options.threads !== undefined || sharedPoolRunning(threads) || mayParse >= MIN_COLD_POOL;
        if (threads > 0 && worthIt) {
          lease = leaseExtractorPool(threads);
          pool = lease.pool;
        }
      }
      send();
    },
    async finish(): Promise<void> {
      for (let n = 1, job = jobs[next]; job; n++, job = jobs[next]) {
        next++;
        await here(job);
        // Let the workers' answers in (they arrive as events) and keep them fed.
        if (pool && n % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        send();
      }
      for (let k = 0; k < sent.length; k++) await sent[k];
    },
    threads: (): number => pool?.threads ?? 0,
    dispose: (): void => {
      stopped = true;
      lease?.release();
    },
  };
}

const itself = (bytes: Uint8Array): Uint8Array => bytes;

function parsedFile(hash: string, tags: FileTags): CachedFile {
  return { hash, columns: () => tagColumns(tags.tags), fileTags: () => tags };
}

const LINK = "link";

// Synchronous on purpose: thousands of tiny stats and reads through the libuv pool cost several times more than
// doing them in line (measured in bench/repomap-bench.ts); each blocks for microseconds only. The stat only keys the
// tag cache (what was stored came through the confined reader); content is read by the confined reader. `lstat`:
// a committed link is never followed here, so nothing outside the checkout is even stat'ed.
function statOf(abs: string): FileStat | typeof LINK | null {
  try {
    // No exception object for a missing file: cheaper when many listed files are gone.
    const s = lstatSync(abs, { throwIfNoEntry: false });
    if (s?.isSymbolicLink()) return LINK;
    return s?.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    // Unreadable (EACCES, a name too long): the file is left out of the map like a missing one; the map is an aid.
    return null;
  }
}
