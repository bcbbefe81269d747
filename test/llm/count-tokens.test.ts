import fc from "fast-check";
import { countInSlices, countTokens, libraryCounter, loadTokenizer } from "../../src/llm/count-tokens.js";

/** The counting rule as written before it learned to scan long texts: runs over 200 non-space characters in slices. */
function sliced(count: (text: string) => number, text: string): number {
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(/\S{201,}/g)) {
    total += count(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += 200) total += count(m[0].slice(i, i + 200));
    last = m.index + m[0].length;
  }
  return total + count(text.slice(last));
}

describe("countTokens", () => {
  let library: (text: string) => number;
  beforeAll(async () => {
    await loadTokenizer();
    library = await libraryCounter();
  });

  it("counts a 6 MB text without whitespace (no stack overflow), as slices of 200 characters", () => {
    const slice = "a1b2".repeat(50);
    const text = slice.repeat(30_000);
    const expected = 30_000 * countTokens(slice);
    expect(countTokens(text)).toBe(expected);
    // The same with some whitespace around and inside it.
    expect(countTokens(` lead ${text}\n\ttail `)).toBe(countTokens(" lead ") + expected + countTokens("\n\ttail "));
  });

  it("never hands the tokenizer a run of whitespace or of anything else over 200 characters (merges are quadratic)", () => {
    const longest = (piece: string) => Math.max(0, ...(piece.match(/\s+|\S+/g) ?? []).map((r) => r.length));
    let most = 0;
    const count = (piece: string) => ((most = Math.max(most, longest(piece))), 1);
    const text = `a b ${" ".repeat(1_000)}word${"\n".repeat(450)}x${"y".repeat(999)} \u3000 end`;
    const pieces = countInSlices(count, text);
    expect(most).toBe(200);
    // The head, 6 slices of spaces, the word, 3 of newlines, 5 of letters (right after them), the tail.
    expect(pieces).toBe(1 + 6 + 1 + 3 + 5 + 1);
  });

  it("counts ordinary text as the tokenizer does, and long runs in slices, as before", () => {
    const pieces = fc.oneof(
      fc.constantFrom(" ", "\n", "\t", "\u00a0", "\u3000", "  ", "x".repeat(199), "y".repeat(201), "z".repeat(450)),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: "grapheme", maxLength: 10 }),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        expect(countTokens(text)).toBe(sliced(library, text));
      }),
      { numRuns: 200 },
    );
    const prose = "The quick brown fox jumps over the lazy dog.\n".repeat(20);
    expect(countTokens(prose)).toBe(library(prose));
  });
});
