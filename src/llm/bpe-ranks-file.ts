/**
 * The tokenizer's rank table (o200k: ~200,000 entries, a string or, for tokens that are not valid UTF-8, their bytes)
 * in a compact file written at build time. gpt-tokenizer ships the table as a 2.4 MB JavaScript module: compiling
 * it cost every process that counts tokens (each job process, the CLI, the Action) ~0.3 s of CPU and ~60 MB of
 * memory. Read from this file it takes ~20 ms.
 *
 * Layout: the magic line; the entry count and the text's byte length (u32 LE each); per entry its UTF-16 length
 * (u16 LE), or 0xFFFF for a byte entry; the strings' UTF-8 text, concatenated; then each byte entry in order as its
 * length (u8) and its bytes.
 */
export type BpeRanks = (string | number[])[];

const MAGIC = Buffer.from("aider-bot bpe ranks 1\n", "latin1");
const BYTES = 0xffff;

/** The file's bytes for a rank table. Throws on an entry the format cannot hold. */
export function encodeRanks(ranks: readonly (string | readonly number[])[]): Buffer {
  const lengths = Buffer.alloc(ranks.length * 2);
  const strings: string[] = [];
  const byteEntries: Buffer[] = [];
  ranks.forEach((entry, i) => {
    if (typeof entry === "string") {
      // A lone surrogate would not survive UTF-8; real tables keep such tokens as bytes.
      if (entry.length >= BYTES || Buffer.from(entry, "utf8").toString("utf8") !== entry) throw new Error(`rank ${i}: a string the rank file cannot hold`);
      lengths.writeUInt16LE(entry.length, i * 2);
      strings.push(entry);
    } else {
      if (entry.length > 255 || entry.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) throw new Error(`rank ${i}: not a byte sequence`);
      lengths.writeUInt16LE(BYTES, i * 2);
      byteEntries.push(Buffer.from([entry.length, ...entry]));
    }
  });
  const text = Buffer.from(strings.join(""), "utf8");
  const header = Buffer.alloc(8);
  header.writeUInt32LE(ranks.length, 0);
  header.writeUInt32LE(text.length, 4);
  return Buffer.concat([MAGIC, header, lengths, text, ...byteEntries]);
}

/** The rank table a file holds. Throws when the bytes are not such a file, or are cut short. */
export function decodeRanks(data: Uint8Array): BpeRanks {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < MAGIC.length + 8 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error("not a rank file");
  const count = buf.readUInt32LE(MAGIC.length);
  const textBytes = buf.readUInt32LE(MAGIC.length + 4);
  const lengthsAt = MAGIC.length + 8;
  const textAt = lengthsAt + count * 2;
  if (textAt + textBytes > buf.length) throw new Error("rank file cut short");
  const text = buf.toString("utf8", textAt, textAt + textBytes);
  const ranks: BpeRanks = new Array(count);
  let pos = 0;
  let bytesAt = textAt + textBytes;
  for (let i = 0; i < count; i++) {
    const length = buf.readUInt16LE(lengthsAt + i * 2);
    if (length !== BYTES) {
      ranks[i] = text.slice(pos, pos + length);
      pos += length;
      continue;
    }
    const n = buf[bytesAt];
    if (n === undefined || bytesAt + 1 + n > buf.length) throw new Error("rank file cut short");
    ranks[i] = Array.from(buf.subarray(bytesAt + 1, bytesAt + 1 + n));
    bytesAt += 1 + n;
  }
  if (pos !== text.length || bytesAt !== buf.length) throw new Error("rank file does not add up");
  return ranks;
}
