import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import type { TagGraph } from "./tag-graph.js";
import { lazyFileTags, type CachedFile } from "./tag-blob.js";
import { TAG_QUERIES } from "./tag-queries.js";

/** Size and modification time: when both still match, a cached entry is used without reading the file. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

export type { CachedFile } from "./tag-blob.js";

/**
 * Tags on disk, per file, keyed by the file's content (sha1) — never by the request, so a new prompt re-parses
 * nothing (Aider re-scans, #5529) — plus the ranking graph of the last content state. One file, replaced
 * atomically; its index is read when opened, each file's tags only when asked for.
 */
export interface TagCache {
  /** The cached tags when the file's size and mtime are those recorded with them. */
  byStat(relPath: string, stat: FileStat): CachedFile | null;
  /**
   * The cached tags of any file with this content (renames and copies hit too); records the new stat. A known file
   * with the content it had and no new stat (`null`) leaves the cache as it was: a fresh clone saves nothing.
   */
  byHash(relPath: string, hash: string, stat: FileStat | null): CachedFile | null;
  /** Record a parsed file's tags, encoded (see tag-blob.ts). */
  store(relPath: string, hash: string, stat: FileStat | null, blob: Uint8Array): void;
  /** The ranking graph stored for this content state (see {@link contentStateKey}), if it is the last one stored. */
  graph(stateKey: string): TagGraph | null;
  storeGraph(stateKey: string, graph: TagGraph): void;
  /** Write the file if anything changed; entries for files not seen since opening are dropped. */
  save(): Promise<void>;
  /** Release the opened file; cached files handed out can no longer be decoded after this. */
  close(): void;
}

/**
 * The file: an 8-byte header (magic, then the index's length), the index written with `v8.serialize` (paths,
 * hashes, stats, where each file's blob sits, the graph), then every file's blob (see tag-blob.ts) back to back.
 * A warm build reads only the header and index; blobs are read one by one, through the descriptor opened with the
 * index, for the few files the map renders. Holding that descriptor keeps reading the file that was opened even
 * when another job replaces it meanwhile (replacement is by rename).
 */
interface Index {
  version: string;
  paths: string[];
  hashes: string[];
  sizes: Float64Array;
  mtimes: Float64Array;
  /** Per file, where its blob starts in the data part (one more element than files). */
  blobStart: Float64Array;
  graph: { key: string; graph: TagGraph } | null;
}

/** A kept entry: its blob is new (bytes) or the opened file's i-th. */
interface Kept {
  hash: string;
  size: number;
  mtimeMs: number;
  blob: Buffer | number;
}

const MAGIC = 0x31544241; // "ABT1" little-endian
// Changing a query changes what a file's tags are: the cache must not survive that.
const VERSION = `6:${createHash("sha1").update(Object.values(TAG_QUERIES).join("\n")).digest("hex").slice(0, 12)}`;
const FILE_NAME = "tags.bin";
/** Blobs read one by one before the whole data part is read instead. */
const SINGLE_READS = 64;

/**
 * The cache key of a file's content: its git blob id (sha1 of `blob <bytes>\0<content>`), so the ids `git ls-files -s`
 * lists for a clean checkout are keys without reading a file. `contentHash("")` is git's empty blob, `e69de29…`.
 */
export function contentHash(content: string | Buffer): string {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Identifies a content state: the files with tags, in order, and their content hashes. */
export function contentStateKey(files: readonly { relPath: string; hash: string }[]): string {
  // One update of one string: thousands of small updates cost several times more.
  return createHash("sha1")
    .update(VERSION + files.map((f) => `${f.relPath}\0${f.hash}\n`).join(""))
    .digest("hex");
}

/**
 * Whether `dir` holds a tag cache file (not whether it is current): a repository's first run has none, and then its
 * map parses every file. Not through a link, as {@link openTagCache} reads it.
 */
export function hasTagCache(dir: string): boolean {
  try {
    return lstatSync(path.join(dir, FILE_NAME)).isFile();
  } catch {
    return false;
  }
}

/** Open (or start) the cache in `dir`. A missing, corrupt or outdated file simply means an empty cache. */
export async function openTagCache(dir: string): Promise<TagCache> {
  const file = path.join(dir, FILE_NAME);
  const opened = openStored(file);
  const index = opened?.index ?? null;
  const pathIndex = new Map<string, number>();
  index?.paths.forEach((p, i) => pathIndex.set(p, i));
  let byHash: Map<string, Buffer | number> | null = null;
  const hashIndex = (): Map<string, Buffer | number> => {
    if (!byHash) {
      byHash = new Map();
      index?.hashes.forEach((h, i) => byHash?.set(h, i));
    }
    return byHash;
  };
  let oldData: Buffer | null = null;
  let singleReads = 0;
  const blobOf = (ref: Buffer | number): Buffer => {
    if (typeof ref !== "number") return ref;
    const { blobStart } = index as Index;
    const a = blobStart[ref];
    const b = blobStart[ref + 1];
    if (a === undefined || b === undefined) throw new RangeError(`tag cache: no blob ${ref}`);
    // Rendering reads a few blobs; rebuilding the graph after an edit reads them all: then read the data at once.
    if (!oldData && ++singleReads > SINGLE_READS) oldData = (opened as Opened).read(0, (opened as Opened).dataBytes);
    if (oldData) return oldData.subarray(a, b);
    return (opened as Opened).read(a, b - a);
  };
  const kept = new Map<string, Kept>();
  let graph = index?.graph ?? null;
  let dirty = false;
  const keep = (relPath: string, k: Kept): CachedFile => {
    kept.set(relPath, k);
    return lazyFileTags(relPath, k.hash, blobOf, k.blob);
  };
  return {
    byStat(relPath, stat) {
      const i = pathIndex.get(relPath);
      if (i === undefined || !index || index.sizes[i] !== stat.size || index.mtimes[i] !== stat.mtimeMs) return null;
      const hash = index.hashes[i];
      if (hash === undefined) return null;
      return keep(relPath, { hash, size: stat.size, mtimeMs: stat.mtimeMs, blob: i });
    },
    byHash(relPath, hash, stat) {
      const i = pathIndex.get(relPath);
      const same = i !== undefined && index?.hashes[i] === hash;
      const blob = same ? i : hashIndex().get(hash);
      if (blob === undefined) return null;
      if (same && !stat) {
        // The stat recorded with this content, if any, still describes it.
        const { sizes, mtimes } = index as Index;
        return keep(relPath, { hash, size: sizes[i] ?? 0, mtimeMs: mtimes[i] ?? 0, blob });
      }
      dirty = true;
      return keep(relPath, { hash, size: stat?.size ?? -1, mtimeMs: stat?.mtimeMs ?? -1, blob });
    },
    store(relPath, hash, stat, bytes) {
      dirty = true;
      const blob = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      hashIndex().set(hash, blob);
      kept.set(relPath, { hash, size: stat?.size ?? -1, mtimeMs: stat?.mtimeMs ?? -1, blob });
    },
    graph(stateKey) {
      return graph?.key === stateKey ? graph.graph : null;
    },
    storeGraph(stateKey, g) {
      dirty = true;
      graph = { key: stateKey, graph: g };
    },
    async save() {
      if (!dirty && kept.size === pathIndex.size) return;
      // Blobs kept from the opened file are copied: read its data part once rather than blob by blob.
      if (opened && [...kept.values()].some((k) => typeof k.blob === "number"))
        oldData ??= opened.read(0, opened.dataBytes);
      const list = [...kept.values()];
      const blobs = list.map((k) => blobOf(k.blob));
      const blobStart = new Float64Array(list.length + 1);
      let total = 0;
      blobs.forEach((b, i) => (blobStart[i + 1] = total += b.length));
      const stored: Index = {
        version: VERSION,
        paths: [...kept.keys()],
        hashes: list.map((k) => k.hash),
        sizes: Float64Array.from(list, (k) => k.size),
        mtimes: Float64Array.from(list, (k) => k.mtimeMs),
        blobStart,
        graph,
      };
      await writeCacheFile(dir, file, stored, blobs);
      dirty = false;
    },
    close() {
      opened?.close();
    },
  };
}

/** The cache file, written whole beside its place and renamed over it: header, index, then the blobs. */
async function writeCacheFile(dir: string, file: string, stored: Index, blobs: Buffer[]): Promise<void> {
  const indexBytes = serialize(stored);
  const header = Buffer.alloc(8);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(indexBytes.length, 4);
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, Buffer.concat([header, indexBytes, ...blobs]));
  await rename(tmp, file);
}

interface Opened {
  index: Index;
  dataBytes: number;
  /** Bytes [start, start+length) of the data part. */
  read(start: number, length: number): Buffer;
  close(): void;
}

/** Read the header and index of the cache file, keeping it open for blob reads; null when absent or unusable. */
function openStored(file: string): Opened | null {
  let fd: number;
  try {
    // Not through a link: with a cache folder inside a checkout, a committed `tags.bin` link must not be read.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    // A missing cache file (or a link there, refused by O_NOFOLLOW) just means a cold cache.
    return null;
  }
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error("not a regular file");
    const size = info.size;
    const header = Buffer.alloc(8);
    if (size < 8 || readSync(fd, header, 0, 8, 0) !== 8 || header.readUInt32LE(0) !== MAGIC)
      throw new Error("not a tag cache");
    const indexBytes = header.readUInt32LE(4);
    if (8 + indexBytes > size) throw new Error("truncated");
    const raw = Buffer.allocUnsafe(indexBytes);
    readSync(fd, raw, 0, indexBytes, 8);
    const index = deserialize(raw) as Partial<Index> | null;
    if (index?.version !== VERSION || !Array.isArray(index.paths) || !isFloat64Array(index.blobStart))
      throw new Error("outdated");
    const dataStart = 8 + indexBytes;
    const dataBytes = size - dataStart;
    if (index.blobStart[index.paths.length] !== dataBytes) throw new Error("truncated");
    return {
      index: index as Index,
      dataBytes,
      read(start, length) {
        const out = Buffer.allocUnsafe(length);
        if (readSync(fd, out, 0, length, dataStart + start) !== length)
          throw new Error(`tag cache ${file} was cut short`);
        return out;
      },
      close,
    };
  } catch {
    // Corrupt, truncated or from an older version: treated as a cold cache, rebuilt and rewritten by this run.
    close();
    return null;
  }
}

// Not `instanceof`: deserialised arrays come from the main realm, which differs from a vm context's (tests).
function isFloat64Array(value: unknown): value is Float64Array {
  return Object.prototype.toString.call(value) === "[object Float64Array]";
}
