import { createCountMemo } from "../../src/llm/count-memo.js";
import { countTokens, loadTokenizer } from "../../src/llm/count-tokens.js";

/** A counter that records the texts it was asked to count (words, for a count that depends on the text). */
function recording(): { count: (text: string) => number; asked: string[] } {
  const asked: string[] = [];
  return { asked, count: (text) => (asked.push(text), text.split(/\s+/).filter(Boolean).length) };
}

describe("remembered token counts", () => {
  it("counts a long text once however often it is asked, and short texts every time", () => {
    const inner = recording();
    const count = createCountMemo(inner.count, { minChars: 20, maxChars: 1_000 });
    const long = "the system prompt repeated in every request ".repeat(3);
    const short = "hi there";
    expect([count(long), count(long), count(`${long}`)]).toEqual([21, 21, 21]);
    expect([count(short), count(short)]).toEqual([2, 2]);
    expect(inner.asked).toEqual([long, short, short]);
  });

  it("holds at most maxChars: past it, it starts over, and a text longer than that is never kept", () => {
    const inner = recording();
    const count = createCountMemo(inner.count, { minChars: 5, maxChars: 30 });
    const a = "a b c d e f g h i j"; // 19 characters
    const b = "k l m n o p q r s t"; // 19: together over 30, so the memo starts over with b alone
    const huge = "x ".repeat(20);
    for (const text of [a, b, b, a, huge, huge]) count(text);
    expect(inner.asked).toEqual([a, b, a, huge, huge]);
  });

  it("the module's counter gives the same counts asked again as asked first", async () => {
    await loadTokenizer();
    const text = "export function parseConfig(text: string): Config {\n  return JSON.parse(text);\n}\n".repeat(40);
    const first = countTokens(text);
    expect(first).toBeGreaterThan(100);
    expect(countTokens(text)).toBe(first);
    expect(countTokens(text.slice(1))).not.toBe(0);
  });
});
