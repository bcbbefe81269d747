import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { TAG_QUERIES } from "./tag-queries.js";
import type { FileTags, Tag } from "./types.js";

/** Size and modification time: when both still match, a cached entry is used without reading the file. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

/**
 * Tags on disk, per file, keyed by the file's content (sha1) — never by the request, so a new prompt re-parses
 * nothing (Aider re-scans, #5529). One JSON file, replaced atomically.
 */
export interface TagCache {
  /** The cached tags when the file's size and mtime are those recorded with them. */
  byStat(relPath: string, stat: FileStat): FileTags | null;
  /** The cached tags of any file with this content (renames and copies hit too); records the new stat. */
  byHash(relPath: string, hash: string, stat: FileStat | null): FileTags | null;
  store(relPath: string, hash: string, stat: FileStat | null, tags: FileTags): void;
  /** Write the file if anything changed; entries for files not seen since opening are dropped. */
  save(): Promise<void>;
}

interface Entry {
  hash: string;
  size: number;
  mtimeMs: number;
  /** Tags as [name, 1 = def / 0 = ref, line]: the path is the key, so not repeated per tag. */
  t: [string, 0 | 1, number][];
  c: Record<number, number[]>;
  r: Record<number, string>;
  n: number;
}

// Changing a query changes what a file's tags are: the cache must not survive that.
const VERSION = `1:${createHash("sha1").update(Object.values(TAG_QUERIES).join("\n")).digest("hex").slice(0, 12)}`;
const FILE_NAME = "tags.json";

/** sha1 of file content, the cache key. */
export function contentHash(content: string): string {
  return createHash("sha1").update(content).digest("hex");
}

/** Open (or start) the cache in `dir`. A missing, corrupt or outdated file simply means an empty cache. */
export async function openTagCache(dir: string): Promise<TagCache> {
  const file = path.join(dir, FILE_NAME);
  const entries = await load(file);
  const byHash = new Map<string, Entry>();
  for (const e of entries.values()) byHash.set(e.hash, e);
  const kept = new Map<string, Entry>();
  let dirty = false;
  const keep = (relPath: string, e: Entry): FileTags => {
    kept.set(relPath, e);
    return toFileTags(relPath, e);
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
    async save() {
      if (!dirty && kept.size === entries.size) return;
      await mkdir(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      await writeFile(tmp, JSON.stringify({ version: VERSION, files: Object.fromEntries(kept) }));
      await rename(tmp, file);
      dirty = false;
    },
  };
}

async function load(file: string): Promise<Map<string, Entry>> {
  try {
    const data = JSON.parse(await readFile(file, "utf8")) as { version?: string; files?: Record<string, Entry> };
    if (data.version !== VERSION || !data.files) return new Map();
    return new Map(Object.entries(data.files));
  } catch {
    return new Map();
  }
}

function toEntry(hash: string, stat: FileStat | null, ft: FileTags): Entry {
  return {
    hash,
    size: stat?.size ?? -1,
    mtimeMs: stat?.mtimeMs ?? -1,
    t: ft.tags.map((t) => [t.name, t.kind === "def" ? 1 : 0, t.line]),
    c: ft.contexts,
    r: ft.rows,
    n: ft.lineCount,
  };
}

function toFileTags(relPath: string, e: Entry): FileTags {
  const tags: Tag[] = e.t.map(([name, k, line]) => ({ relPath, name, kind: k === 1 ? "def" : "ref", line }));
  return { relPath, tags, contexts: e.c, rows: e.r, lineCount: e.n };
}
