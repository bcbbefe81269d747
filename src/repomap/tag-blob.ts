import type { TagColumns } from "./tag-numbering.js";
import type { FileTags, Tag } from "./types.js";

/**
 * One file's tags and render detail as bytes, as the tag cache stores them and workers send them: a 12-byte header
 * (tag count, bytes of names, bytes of detail), the distinct names joined by NUL (identifiers never hold one:
 * files with NUL bytes are not parsed), then per tag its name index (u32), row (u32) and kind (u8: 1 def, 0 ref),
 * then the render detail: line count, row count R, context count C (u32 each), R row numbers, per context its
 * line, its size n and n rows (u32 each), then the R rows' text joined by newlines (a row never holds one). Flat
 * bytes, so thousands of files are written as one buffer and read back one by one.
 */
export function encodeFileTags(ft: FileTags): Buffer {
  const columns = tagColumns(ft.tags);
  const namesText = columns.names.join("\0");
  const rowNumbers = Object.keys(ft.rows).map(Number);
  const rowsText = rowNumbers.map((r) => ft.rows[r]).join("\n");
  const contexts = Object.entries(ft.contexts);
  const count = ft.tags.length;
  const namesBytes = Buffer.byteLength(namesText);
  const numbers = 3 + rowNumbers.length + contexts.reduce((n, [, rows]) => n + 2 + rows.length, 0);
  const detailBytes = 4 * numbers + Buffer.byteLength(rowsText);
  const out = Buffer.allocUnsafe(12 + namesBytes + 9 * count + detailBytes);
  out.writeUInt32LE(count, 0);
  out.writeUInt32LE(namesBytes, 4);
  out.writeUInt32LE(detailBytes, 8);
  let at = 12 + out.write(namesText, 12, "utf8");
  // The three columns have `count` entries each (tagColumns).
  for (let i = 0; i < count; i++) {
    out.writeUInt32LE(columns.name[i]!, at);
    out.writeUInt32LE(columns.line[i]!, at + 4);
    out.writeUInt8(columns.def[i]!, at + 8);
    at += 9;
  }
  const u32 = (n: number): void => {
    out.writeUInt32LE(n, at);
    at += 4;
  };
  u32(ft.lineCount);
  u32(rowNumbers.length);
  u32(contexts.length);
  for (const r of rowNumbers) u32(r);
  for (const [line, rows] of contexts) {
    u32(Number(line));
    u32(rows.length);
    for (const r of rows) u32(r);
  }
  out.write(rowsText, at, "utf8");
  return out;
}

/** The tags in a blob from {@link encodeFileTags}, named for `relPath` (a blob may be shared by copies). */
export function decodeTags(blob: Uint8Array, relPath: string): Tag[] {
  const b = asBuffer(blob);
  const count = b.readUInt32LE(0);
  const namesBytes = b.readUInt32LE(4);
  const names = namesBytes > 0 ? b.toString("utf8", 12, 12 + namesBytes).split("\0") : [];
  const tags: Tag[] = new Array<Tag>(count);
  let at = 12 + namesBytes;
  for (let i = 0; i < count; i++, at += 9) {
    const name = names[b.readUInt32LE(at)];
    if (name === undefined) throw new RangeError(`tag blob of ${relPath}: tag ${i} names no stored name`);
    tags[i] = {
      relPath,
      name,
      kind: b.readUInt8(at + 8) === 1 ? "def" : "ref",
      line: b.readUInt32LE(at + 4),
    };
  }
  return tags;
}

/** The tags of a blob as columns (for the ranking graph): no object per tag. */
export function decodeColumns(blob: Uint8Array): TagColumns {
  const b = asBuffer(blob);
  const count = b.readUInt32LE(0);
  const namesBytes = b.readUInt32LE(4);
  const names = namesBytes > 0 ? b.toString("utf8", 12, 12 + namesBytes).split("\0") : [];
  const name = new Int32Array(count);
  const line = new Int32Array(count);
  const def = new Uint8Array(count);
  let at = 12 + namesBytes;
  for (let i = 0; i < count; i++, at += 9) {
    name[i] = b.readUInt32LE(at);
    line[i] = b.readUInt32LE(at + 4);
    def[i] = b.readUInt8(at + 8);
  }
  return { names, name, line, def };
}

/** Columns of tags in memory, names numbered by first use (as blobs store them). */
export function tagColumns(tags: readonly Tag[]): TagColumns {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const name = new Int32Array(tags.length);
  const line = new Int32Array(tags.length);
  const def = new Uint8Array(tags.length);
  tags.forEach((t, i) => {
    let id = ids.get(t.name);
    if (id === undefined) ids.set(t.name, (id = names.push(t.name) - 1));
    name[i] = id;
    line[i] = t.line;
    def[i] = t.kind === "def" ? 1 : 0;
  });
  return { names, name, line, def };
}

/** Tags and render detail of a blob. */
export function decodeFileTags(blob: Uint8Array, relPath: string, tags: Tag[] = decodeTags(blob, relPath)): FileTags {
  const b = asBuffer(blob);
  let at = 12 + b.readUInt32LE(4) + 9 * b.readUInt32LE(0);
  const end = at + b.readUInt32LE(8);
  const u32 = (): number => {
    const n = b.readUInt32LE(at);
    at += 4;
    return n;
  };
  const lineCount = u32();
  const rowCount = u32();
  const contextCount = u32();
  const rowNumbers = Array.from({ length: rowCount }, u32);
  const contexts: FileTags["contexts"] = {};
  for (let c = 0; c < contextCount; c++) {
    const line = u32();
    contexts[line] = Array.from({ length: u32() }, u32);
  }
  const texts = b.toString("utf8", at, end).split("\n");
  const rows: FileTags["rows"] = {};
  rowNumbers.forEach((r, i) => (rows[r] = texts[i] ?? ""));
  return { relPath, tags, contexts, rows, lineCount };
}

function asBuffer(blob: Uint8Array): Buffer {
  return Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}

/** One file's tags, decoded only when asked for: a warm build renders a few files of thousands. */
export interface CachedFile {
  hash: string;
  /** The tags as columns, for building the ranking graph. */
  columns(): TagColumns;
  fileTags(): FileTags;
}

/**
 * A {@link CachedFile} over a blob read (once) on first use: `blob(ref)` gives the bytes. A class rather than
 * closures: a warm build makes one per file, and each closure is one more object for the garbage collector.
 */
export function lazyFileTags<R>(relPath: string, hash: string, blob: (ref: R) => Uint8Array, ref: R): CachedFile {
  return new LazyFileTags(relPath, hash, blob, ref);
}

class LazyFileTags<R> implements CachedFile {
  private decoded: FileTags | null = null;
  private bytes: Uint8Array | null = null;

  constructor(
    private readonly relPath: string,
    readonly hash: string,
    private readonly blob: (ref: R) => Uint8Array,
    private readonly ref: R,
  ) {}

  columns(): TagColumns {
    return decodeColumns(this.data());
  }

  fileTags(): FileTags {
    return (this.decoded ??= decodeFileTags(this.data(), this.relPath));
  }

  private data(): Uint8Array {
    return (this.bytes ??= this.blob(this.ref));
  }
}
