import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { createBpeCounter, encodeBpeTable, readBpeTable } from "../../src/llm/bpe-table.js";
import { libraryCounter } from "../../src/llm/count-tokens.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bytes = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));

describe("the token table file", () => {
  const ranks = ["a", "b", "ab", " the", "ü", "😀", [0xc3], [0xe2, 0x80], [0xef, 0xbb, 0xbf], "x".repeat(200)];

  it("finds each token's bytes at its rank, and nothing else; a bytes entry that is valid UTF-8 is never found, as in gpt-tokenizer", () => {
    const table = readBpeTable(encodeBpeTable(ranks));
    expect(table.size).toBe(ranks.length);
    ranks.forEach((entry, rank) => {
      const key = typeof entry === "string" ? bytes(entry) : Uint8Array.from(entry);
      expect(table.rankOf(key, 0, key.length)).toBe(rank === 8 ? -1 : rank);
    });
    const text = bytes("zab the");
    expect(table.rankOf(text, 1, 3)).toBe(2);
    expect(table.rankOf(text, 3, 7)).toBe(3);
    expect(table.rankOf(text, 0, 2)).toBe(-1);
    expect(table.rankOf(text, 0, 0)).toBe(-1);
  });

  it("refuses what is not a table, a table cut short or with bytes left over, and entries it cannot hold", () => {
    const file = encodeBpeTable(ranks);
    expect(() => readBpeTable(Buffer.from("export default [];"))).toThrow("not a token table");
    expect(() => readBpeTable(file.subarray(0, file.length - 1))).toThrow("cut short");
    expect(() => readBpeTable(Buffer.concat([file, Buffer.from([0])]))).toThrow("overlong");
    // A view at an odd offset (typed arrays need alignment) is copied, not refused.
    const odd = Buffer.concat([Buffer.from([0]), file]).subarray(1);
    expect(readBpeTable(odd).rankOf(bytes("ab"), 0, 2)).toBe(2);
    expect(() => encodeBpeTable(["ok", "\ud800 lone surrogate"])).toThrow("rank 1");
    expect(() => encodeBpeTable([[256]])).toThrow("rank 0: not a byte sequence");
    expect(() => encodeBpeTable(["ab", "ab"])).toThrow("rank 1: the same bytes as rank 0");
    expect(() => encodeBpeTable([[0xc3], [0xc3]])).toThrow("rank 1: the same bytes as rank 0");
  });
});

// The table `npm run build` writes (jest's global setup builds dist/ before any test runs).
const built = path.join(root, "dist/data/o200k_base.table");

describe("counting over the build's o200k table counts what gpt-tokenizer counts", () => {
  let table: (text: string) => number;
  let library: (text: string) => number;
  beforeAll(async () => {
    table = createBpeCounter(readBpeTable(await readFile(built)), O200K_TOKEN_SPLIT_REGEX);
    library = await libraryCounter();
  });

  it("on every source, doc and fixture file of this repository (code, prose, JSON fixtures with hidden characters)", async () => {
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else files.push(full);
      }
    };
    for (const dir of ["src", "docs", "test/fixtures"]) await walk(path.join(root, dir));
    expect(files.length).toBeGreaterThan(200);
    const differ: string[] = [];
    for (const file of files) {
      const text = await readFile(file, "utf8");
      if (table(text) !== library(text)) differ.push(path.relative(root, file));
    }
    expect(differ).toEqual([]);
  });

  it("on generated text: any code points (lone surrogates too), byte-order marks, specials, code and whitespace, mixed", () => {
    const part = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom(
        "\ufeff",
        "\ufeffobey",
        "<|endoftext|>",
        "<|im_start|>",
        "  \n\n\t",
        "don't",
        "I'LL",
        "123456",
        "const x = () => {};",
        "ﬁ",
        "é",
        "日本語のテキスト",
        "\r\n",
        "/**/",
      ),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        expect(table(text)).toBe(library(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe("the build's table", () => {
  it("holds every token of gpt-tokenizer's o200k table at its rank, and is where the built count-tokens reads it", async () => {
    const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
    const lookup = readBpeTable(await readFile(built));
    expect(lookup.size).toBe(ranks.length);
    const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const valid = (key: Uint8Array) => {
      try {
        utf8.decode(key);
        return true;
      } catch {
        return false;
      }
    };
    const unreachable: number[] = [];
    const wrong = ranks.flatMap((entry, rank) => {
      const key = typeof entry === "string" ? bytes(entry) : Uint8Array.from(entry);
      const found = lookup.rankOf(key, 0, key.length);
      // A bytes entry that is valid UTF-8 is unreachable in gpt-tokenizer, and so here (see the first test).
      if (found === -1 && typeof entry !== "string" && valid(key)) unreachable.push(rank);
      return found === rank || unreachable.at(-1) === rank ? [] : [rank];
    });
    expect(unreachable.length).toBeLessThan(20); // 9 in o200k: the byte-order mark and a few others
    expect(wrong).toEqual([]);
    const { TOKEN_TABLE_FILE, loadTokenizer } = await import(path.join(root, "dist/llm/count-tokens.js"));
    expect(fileURLToPath(TOKEN_TABLE_FILE)).toBe(built);
    const count = await loadTokenizer();
    const library = await libraryCounter();
    const sample = await readFile(path.join(root, "README.md"), "utf8");
    expect(count(sample)).toBe(library(sample));
    // The bundle's chunks sit one level down in dist/ too: the same relative path reaches the table.
    const chunks = await readdir(path.join(root, "dist/chunks"));
    const readers = [];
    for (const c of chunks.filter((f) => f.endsWith(".js")))
      if ((await readFile(path.join(root, "dist/chunks", c), "utf8")).includes('"../data/o200k_base.table"'))
        readers.push(c);
    expect(readers).toHaveLength(1);
  });
});
