import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import type { TagGraph } from "./tag-graph.js";
import { TAG_QUERIES } from "./tag-queries.js";
import type { FileTags, Tag } from "./types.js";

/** Size and modification time: when both still match, a cached entry is used without reading the file. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** One file's cached tags; decoding is deferred until asked for, since a warm build renders only a few files. */
export interface CachedFile {
  hash: string;
  tags(): Tag[];
  fileTags(): FileTags;
}

/**
 * Tags on disk, per file, keyed by the file's content (sha1) — never by the request, so a new prompt re-parses
 * nothing (Aider re-scans, #5529) — plus the ranking graph of the last content state. One file, read at once and
 * replaced atomically.
 */
export interface TagCache {
  /** The cached tags when the file's size and mtime are those recorded with them. */
  byStat(relPath: string, stat: FileStat): CachedFile | null;
  /** The cached tags of any file with this content (renames and copies hit too); records the new stat. */
  byHash(relPath: string, hash: string, stat: FileStat | null): CachedFile | null;
  store(relPath: string, hash: string, stat: FileStat | null, tags: FileTags): void;
  /** The ranking graph stored for this content state (see {@link contentStateKey}), if it is the last one stored. */
  graph(stateKey: string): TagGraph | null;
  storeGraph(stateKey: string, graph: TagGraph): void;
  /** Write the file if anything changed; entries for files not seen since opening are dropped. */
  save(): Promise<void>;
}

/** One file's entry: tags as parallel arrays over a name table, the render detail as JSON bytes (parsed lazily). */
interface Entry {
  hash: string;
  size: number;
  mtimeMs: number;
  lineCount: number;
  names: readonly string[];
  nameIds: Int32Array;
  lines: Int32Array;
  /** 1 = def, 0 = ref. */
  kinds: Uint8Array;
  /** JSON of `{ c: contexts, r: rows }`. */
  detail: Uint8Array;
}

/**
 * The file: every entry's arrays concatenated (so thousands of files cost a handful of objects to read), with a
 * single name table; written with `v8.serialize`, which copies typed arrays as bytes.
 */
interface Stored {
  version: string;
  paths: string[];
  hashes: string[];
  sizes: Float64Array;
  mtimes: Float64Array;
  lineCounts: Int32Array;
  names: string[];
  /** Per file, where its tags start in `nameIds`/`lines`/`kinds` (one more element than files). */
  tagStart: Int32Array;
  nameIds: Int32Array;
  lines: Int32Array;
  kinds: Uint8Array;
  detailStart: Int32Array;
  details: Uint8Array;
  graph: { key: string; graph: TagGraph } | null;
}

// Changing a query changes what a file's tags are: the cache must not survive that.
const VERSION = `2:${createHash("sha1").update(Object.values(TAG_QUERIES).join("\n")).digest("hex").slice(0, 12)}`;
const FILE_NAME = "tags.v8";

/** sha1 of file content, the cache key. */
export function contentHash(content: string): string {
  return createHash("sha1").update(content).digest("hex");
}

/** Identifies a content state: the files with tags, in order, and their content hashes. */
export function contentStateKey(files: readonly { relPath: string; hash: string }[]): string {
  const h = createHash("sha1").update(VERSION);
  for (const f of files) h.update(`${f.relPath}\0${f.hash}\n`);
  return h.digest("hex");
}

/** Open (or start) the cache in `dir`. A missing, corrupt or outdated file simply means an empty cache. */
export async function openTagCache(dir: string): Promise<TagCache> {
  const file = path.join(dir, FILE_NAME);
  const stored = await load(file);
  const entries = stored ? unpack(stored) : new Map<string, Entry>();
  const byHash = new Map<string, Entry>();
  for (const e of entries.values()) byHash.set(e.hash, e);
  const kept = new Map<string, Entry>();
  let graph = stored?.graph ?? null;
  let dirty = false;
  const keep = (relPath: string, e: Entry): CachedFile => {
    kept.set(relPath, e);
    return cachedFile(relPath, e);
  };
  return {
    byStat(relPath, stat) {
      const e = entries.get(relPath);
      if (!e || e.size !== stat.size || e.mtimeMs !== stat.mtimeMs) return null;
      return keep(relPath, e);
    },
    byHash(relPath, hash, stat) {
      const e = entries.get(relPath)?.hash === hash ? entries.get(relPath) : byHash.get(hash);
      if (!e) return null;
      dirty = true;
      return keep(relPath, { ...e, size: stat?.size ?? -1, mtimeMs: stat?.mtimeMs ?? -1 });
    },
    store(relPath, hash, stat, tags) {
      dirty = true;
      const e = toEntry(hash, stat, tags);
      byHash.set(hash, e);
      kept.set(relPath, e);
    },
    graph(stateKey) {
      return graph?.key === stateKey ? graph.graph : null;
    },
    storeGraph(stateKey, g) {
      dirty = true;
      graph = { key: stateKey, graph: g };
    },
    async save() {
      if (!dirty && kept.size === entries.size) return;
      await mkdir(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      await writeFile(tmp, serialize(pack(kept, graph)));
      await rename(tmp, file);
      dirty = false;
    },
  };
}

async function load(file: string): Promise<Stored | null> {
  try {
    const data = deserialize(await readFile(file)) as Partial<Stored> | null;
    return data?.version === VERSION && Array.isArray(data.paths) ? (data as Stored) : null;
  } catch {
    return null;
  }
}

/** Entries that view the stored arrays (no copying). */
function unpack(s: Stored): Map<string, Entry> {
  const out = new Map<string, Entry>();
  s.paths.forEach((p, i) => {
    const [a, b] = [s.tagStart[i], s.tagStart[i + 1]];
    out.set(p, {
      hash: s.hashes[i],
      size: s.sizes[i],
      mtimeMs: s.mtimes[i],
      lineCount: s.lineCounts[i],
      names: s.names,
      nameIds: s.nameIds.subarray(a, b),
      lines: s.lines.subarray(a, b),
      kinds: s.kinds.subarray(a, b),
      detail: s.details.subarray(s.detailStart[i], s.detailStart[i + 1]),
    });
  });
  return out;
}

function pack(entries: Map<string, Entry>, graph: Stored["graph"]): Stored {
  const names: string[] = [];
  const nameId = new Map<string, number>();
  const total = [...entries.values()].reduce((n, e) => n + e.lines.length, 0);
  const nameIds = new Int32Array(total);
  const lines = new Int32Array(total);
  const kinds = new Uint8Array(total);
  const tagStart = new Int32Array(entries.size + 1);
  const detailStart = new Int32Array(entries.size + 1);
  const details = new Uint8Array([...entries.values()].reduce((n, e) => n + e.detail.length, 0));
  let t = 0;
  let d = 0;
  [...entries.values()].forEach((e, i) => {
    tagStart[i] = t;
    detailStart[i] = d;
    for (let j = 0; j < e.lines.length; j++, t++) {
      const name = e.names[e.nameIds[j]];
      let id = nameId.get(name);
      if (id === undefined) nameId.set(name, (id = names.push(name) - 1));
      nameIds[t] = id;
      lines[t] = e.lines[j];
      kinds[t] = e.kinds[j];
    }
    details.set(e.detail, d);
    d += e.detail.length;
  });
  tagStart[entries.size] = t;
  detailStart[entries.size] = d;
  const list = [...entries.values()];
  return {
    version: VERSION,
    paths: [...entries.keys()],
    hashes: list.map((e) => e.hash),
    sizes: Float64Array.from(list, (e) => e.size),
    mtimes: Float64Array.from(list, (e) => e.mtimeMs),
    lineCounts: Int32Array.from(list, (e) => e.lineCount),
    names,
    tagStart,
    nameIds,
    lines,
    kinds,
    detailStart,
    details,
    graph,
  };
}

function toEntry(hash: string, stat: FileStat | null, ft: FileTags): Entry {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const nameIds = Int32Array.from(ft.tags, (t) => {
    let id = ids.get(t.name);
    if (id === undefined) ids.set(t.name, (id = names.push(t.name) - 1));
    return id;
  });
  return {
    hash,
    size: stat?.size ?? -1,
    mtimeMs: stat?.mtimeMs ?? -1,
    lineCount: ft.lineCount,
    names,
    nameIds,
    lines: Int32Array.from(ft.tags, (t) => t.line),
    kinds: Uint8Array.from(ft.tags, (t) => (t.kind === "def" ? 1 : 0)),
    detail: Buffer.from(JSON.stringify({ c: ft.contexts, r: ft.rows })),
  };
}

function cachedFile(relPath: string, e: Entry): CachedFile {
  let tags: Tag[] | null = null;
  let fileTags: FileTags | null = null;
  const decodeTags = (): Tag[] =>
    Array.from(e.lines, (line, j): Tag => ({ relPath, name: e.names[e.nameIds[j]], kind: e.kinds[j] === 1 ? "def" : "ref", line }));
  return {
    hash: e.hash,
    tags: () => (tags ??= decodeTags()),
    fileTags() {
      if (!fileTags) {
        const { c, r } = JSON.parse(Buffer.from(e.detail.buffer, e.detail.byteOffset, e.detail.byteLength).toString("utf8")) as {
          c: FileTags["contexts"];
          r: FileTags["rows"];
        };
        fileTags = { relPath, tags: (tags ??= decodeTags()), contexts: c, rows: r, lineCount: e.lineCount };
      }
      return fileTags;
    },
  };
}
