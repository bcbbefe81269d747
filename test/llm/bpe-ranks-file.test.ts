import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { decodeRanks, encodeRanks } from "../../src/llm/bpe-ranks-file.js";

describe("the tokenizer's compact rank file", () => {
  const table = ["a", "ab", " the", "ünïcode", "😀 wide", "", [0xc3], [0xe2, 0x80], "x".repeat(200), [255, 0, 7]];

  it("gives back the table it was made from: strings, empty strings, astral characters and byte entries, in order", () => {
    expect(decodeRanks(encodeRanks(table))).toEqual(table);
  });

  it("refuses what is not a rank file, or is cut short, or has bytes left over", () => {
    const file = encodeRanks(table);
    expect(() => decodeRanks(Buffer.from("export default [];"))).toThrow("not a rank file");
    expect(() => decodeRanks(file.subarray(0, file.length - 2))).toThrow(/cut short|does not add up/);
    expect(() => decodeRanks(file.subarray(0, 40))).toThrow("cut short");
    expect(() => decodeRanks(Buffer.concat([file, Buffer.from([1])]))).toThrow("does not add up");
  });

  it("refuses entries it cannot hold rather than writing a table that decodes differently", () => {
    expect(() => encodeRanks(["ok", "\ud800 lone surrogate"])).toThrow("rank 1");
    expect(() => encodeRanks([[256]])).toThrow("rank 0: not a byte sequence");
  });

  it("the file `npm run build` writes holds gpt-tokenizer's own o200k table, entry for entry", async () => {
    const built = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/data/o200k_base.ranks");
    const { default: library } = await import("gpt-tokenizer/bpeRanks/o200k_base");
    const fromFile = decodeRanks(await readFile(built));
    expect(fromFile.length).toBe(library.length);
    expect(fromFile).toEqual(library);
    // The built count-tokens (and the bundle's chunks, one level down in dist/ as well) reads it from there.
    const { RANKS_FILE } = await import(path.join(path.dirname(built), "../llm/count-tokens.js"));
    expect(fileURLToPath(RANKS_FILE)).toBe(built);
    const dist = path.dirname(path.dirname(built));
    const readers: string[] = [];
    for (const dir of await readdir(dist, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      for (const file of await readdir(path.join(dist, dir.name))) {
        if (file.endsWith(".js") && (await readFile(path.join(dist, dir.name, file), "utf8")).includes("../data/o200k_base.ranks")) readers.push(`${dir.name}/${file}`);
      }
    }
    expect(readers).toEqual(expect.arrayContaining(["llm/count-tokens.js", expect.stringMatching(/^chunks\//)]));
  });
});
