/**
 * Counting o200k tokens from a table the build writes once, instead of gpt-tokenizer's in-memory maps.
 *
 * Hand-written, kept (`npm run bench libs tokens`, docs/performance.md): in a fresh process, loading
 * this table took 40 ms of CPU against 718 ms for gpt-tokenizer (18×) and kept 4 MB of RSS against 43 MB (10×);
 * counting this repository's sources (1.6 M characters) took half the time (2.1 s against 4.2 s), with the same
 * counts (medians of 5 on a loaded 2-core machine). gpt-tokenizer stays the reference and the unbuilt fallback.
 *
 * gpt-tokenizer (the reference, and the fallback where no table was built) builds a Map of ~200,000 strings each time
 * a process loads it: ~0.3 s of CPU on a quiet machine and ~0.8 s with its garbage collection under load, in every job
 * process, CLI run and Action run, each of which counts only a few texts. The table here is read as it lies in the
 * file: a hash table from a token's bytes to its rank, the ranks' bytes, and their offsets — typed arrays over the
 * file's bytes, nothing to build.
 *
 * Counting follows gpt-tokenizer's `countTokens` step for step, with special tokens counted as plain text: the text is
 * split with o200k's pattern; a piece that is a token counts one; any other piece is byte-pair merged (the adjacent
 * pair of lowest rank first, the leftmost on a tie) and counts its parts. A test compares the two on this repository's
 * sources and on generated text.
 *
 * Two quirks of gpt-tokenizer are kept, so the counts stay the same: it finds a byte sequence that is valid UTF-8 by
 * decoding it to a string, and its decoder drops a leading byte-order mark (EF BB BF), so such a sequence is looked up
 * without it; and a token listed as bytes that are valid UTF-8 (the byte-order mark itself) is never found.
 *
 * The lookups and merges are hot loops over typed arrays: each `!` reads a slot the loop bounds (the hash table's
 * size, the ranks' count), kept so as not to pay a check per byte.
 */
export type BpeRanks = readonly (string | readonly number[])[];

export interface BpeTable {
  /** The rank of `bytes[start, end)`, or -1. */
  rankOf(bytes: Uint8Array, start: number, end: number): number;
  readonly size: number;
}

const MAGIC = Buffer.from("aider-bot bpe table 1\n", "latin1");
const HEADER = MAGIC.length + 12;
const align4 = (n: number) => (n + 3) & ~3;

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The table file for a rank table (a string, or for a token that is not valid UTF-8 its bytes, per rank). */
export function encodeBpeTable(ranks: BpeRanks): Buffer {
  // A bytes entry that is valid UTF-8 is unreachable in gpt-tokenizer (see above): it is kept out of the hash table.
  const unreachable = new Set<number>();
  const tokens = ranks.map((entry, i) => {
    if (typeof entry === "string") {
      // gpt-tokenizer looks strings up as strings: one that UTF-8 cannot hold would not round-trip through bytes.
      if (Buffer.from(entry, "utf8").toString("utf8") !== entry)
        throw new Error(`rank ${i}: a string that is not well-formed Unicode`);
      return Buffer.from(entry, "utf8");
    }
    if (entry.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) throw new Error(`rank ${i}: not a byte sequence`);
    if (isUtf8(Uint8Array.from(entry))) unreachable.add(i);
    return Buffer.from(entry);
  });
  let size = 1;
  while (size < tokens.length * 2) size *= 2;
  const offsets = new Uint32Array(tokens.length + 1);
  tokens.forEach((t, i) => (offsets[i + 1] = offsets[i]! + t.length));
  const bytes = Buffer.concat(tokens);
  const table = new Int32Array(size);
  tokens.forEach((t, rank) => {
    if (unreachable.has(rank)) return;
    let slot = fnv1a(t, 0, t.length) & (size - 1);
    while (table[slot] !== 0) {
      if (Buffer.compare(tokens[table[slot]! - 1]!, t) === 0)
        throw new Error(`rank ${rank}: the same bytes as rank ${table[slot]! - 1}`);
      slot = (slot + 1) & (size - 1);
    }
    table[slot] = rank + 1;
  });
  const header = Buffer.alloc(align4(HEADER) - MAGIC.length);
  header.writeUInt32LE(tokens.length, 0);
  header.writeUInt32LE(bytes.length, 4);
  header.writeUInt32LE(size, 8);
  return Buffer.concat([MAGIC, header, Buffer.from(offsets.buffer), Buffer.from(table.buffer), bytes]);
}

/** The table a file holds (views over its bytes). Throws when the bytes are not such a file, or are cut short. */
export function readBpeTable(file: Uint8Array): BpeTable {
  // Typed arrays need 4-byte aligned offsets: a file read whole starts aligned; copy one that does not.
  const data = file.byteOffset % 4 === 0 ? file : Uint8Array.from(file);
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < HEADER || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error("not a token table");
  const count = buf.readUInt32LE(MAGIC.length);
  const bytesLength = buf.readUInt32LE(MAGIC.length + 4);
  const size = buf.readUInt32LE(MAGIC.length + 8);
  const offsetsAt = align4(HEADER);
  const tableAt = offsetsAt + (count + 1) * 4;
  const bytesAt = tableAt + size * 4;
  if (size === 0 || (size & (size - 1)) !== 0 || size < count) throw new Error("token table damaged");
  if (bytesAt + bytesLength !== buf.length) throw new Error("token table cut short or overlong");
  const offsets = new Uint32Array(data.buffer, data.byteOffset + offsetsAt, count + 1);
  const table = new Int32Array(data.buffer, data.byteOffset + tableAt, size);
  const bytes = data.subarray(bytesAt);
  if (offsets[count] !== bytesLength) throw new Error("token table damaged");
  const mask = size - 1;
  return {
    size: count,
    rankOf(key, start, end) {
      const length = end - start;
      for (let slot = fnv1a(key, start, end) & mask; ; slot = (slot + 1) & mask) {
        const entry = table[slot]!;
        if (entry === 0) return -1;
        const at = offsets[entry - 1]!;
        if (offsets[entry]! - at !== length) continue;
        let i = 0;
        while (i < length && bytes[at + i] === key[start + i]) i++;
        if (i === length) return entry - 1;
      }
    },
  };
}

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A token counter over a table and the encoding's split pattern (a global, unicode RegExp). */
export function createBpeCounter(table: BpeTable, split: RegExp): (text: string) => number {
  let scratch = new Uint8Array(1024);
  const partsAfterMerge = (piece: Uint8Array, length: number): number => {
    const rank = (from: number | undefined, to: number | undefined) => {
      if (from === undefined || to === undefined) return Infinity;
      const r = rankOfBytes(piece, from, to);
      return r < 0 ? Infinity : r;
    };
    const starts: number[] = [];
    const ranks: number[] = [];
    for (let i = 0; i <= length; i++) {
      starts.push(i);
      ranks.push(i < length - 1 ? rank(i, i + 2) : Infinity);
    }
    while (starts.length > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++) {
        if (ranks[i]! < lowest) {
          lowest = ranks[i]!;
          at = i;
        }
      }
      if (at === -1) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = rank(starts[at], starts[at + 2]);
      if (at > 0) ranks[at - 1] = rank(starts[at - 1], starts[at + 1]);
    }
    return starts.length - 1;
  };
  const BOM = [0xef, 0xbb, 0xbf];
  // gpt-tokenizer's lookup of bytes (see above): a leading byte-order mark on valid UTF-8 is not part of the key.
  const rankOfBytes = (bytes: Uint8Array, from: number, to: number) => {
    if (
      to - from >= 3 &&
      bytes[from] === BOM[0] &&
      bytes[from + 1] === BOM[1] &&
      bytes[from + 2] === BOM[2] &&
      isUtf8(bytes.subarray(from + 3, to))
    )
      return table.rankOf(bytes, from + 3, to);
    return table.rankOf(bytes, from, to);
  };
  return (text) => {
    let count = 0;
    for (const [piece] of text.matchAll(split)) {
      if (piece.length === 1 && piece.charCodeAt(0) < 128) {
        count++; // every ASCII character is a token
        continue;
      }
      if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
      const { written } = encoder.encodeInto(piece, scratch);
      // gpt-tokenizer looks a piece up as a string first; a lone surrogate is in no token (its bytes, U+FFFD's, may be).
      if (!LONE_SURROGATE.test(piece) && table.rankOf(scratch, 0, written) >= 0) count++;
      else count += partsAfterMerge(scratch, written);
    }
    return count;
  };
}
