import { stripAnsi } from "../../src/checks/strip-ansi.js";
import { truncateOutput } from "../../src/checks/truncate-output.js";
import { countTokens, loadTokenizer } from "../../src/llm/count-tokens.js";

describe("truncateOutput", () => {
  beforeAll(() => loadTokenizer());
  const long = Array.from({ length: 2000 }, (_, i) => `line ${i}: some test output here`).join("\n");

  it("returns output within the budget unchanged", () => {
    expect(truncateOutput("a\nb\n", 100)).toBe("a\nb\n");
  });

  it("keeps the head and the tail within the budget, saying how much was cut", () => {
    const out = truncateOutput(long, 500);
    expect(out.startsWith("line 0: some test output here\nline 1:")).toBe(true);
    expect(out.endsWith("line 1999: some test output here")).toBe(true);
    const cut = Number(/… \[(\d+) lines cut\] …/.exec(out)?.[1]);
    const kept = out.split("\n").length - 1;
    expect(cut + kept).toBe(2000);
    expect(countTokens(out)).toBeLessThanOrEqual(520);
  });

  it("cuts a single giant line in its middle instead of dropping everything", () => {
    const out = truncateOutput(`start\n${"x".repeat(50_000)}\nend`, 800);
    expect(out).toMatch(/^start\n/);
    expect(out).toMatch(/end$/);
    expect(out).toContain("characters cut");
  });

  it("answers a 300,000-character single line with its two ends and a cut marker, within the budget", () => {
    // With the tokenizer loaded, counting this line in one piece took minutes (BPE is quadratic in a run's length).
    const line = `${"ab".repeat(150_000)}`;
    const out = truncateOutput(`head\n${line}\ntail`, 800);
    expect(out.split("\n")).toEqual([
      "head",
      expect.stringMatching(/^(ab)+a? … \[299000 characters cut\] … b?(ab)+$/),
      "tail",
    ]);
    expect(out.length).toBeLessThan(1_100);
    expect(countTokens(out)).toBeLessThanOrEqual(800);
  });
});

describe("countTokens", () => {
  beforeAll(() => loadTokenizer());

  it("counts a 300,000-character run of one character in slices: about one token per few characters, not one per run", () => {
    const n = countTokens("x".repeat(300_000));
    expect(n).toBeGreaterThan(300_000 / 200);
    expect(n).toBeLessThan(300_000 / 2);
  });

  it("counts ordinary text exactly as the tokenizer does", async () => {
    const text = "const answer = 42; // the answer\n".repeat(50);
    const mod = await import("gpt-tokenizer/encoding/o200k_base");
    expect(countTokens(text)).toBe(mod.countTokens(text, { disallowedSpecial: new Set<string>() }));
  });
});

describe("stripAnsi", () => {
  it.each([
    ["colours", "\u001b[1m\u001b[31merror\u001b[39m\u001b[22m: x", "error: x"],
    ["OSC 8 hyperlinks", "\u001b]8;;file:///a.ts\u0007a.ts\u001b]8;;\u0007:3", "a.ts:3"],
    ["progress redraws keep the last state", "10%\r50%\r100%\ndone", "100%\ndone"],
    ["CRLF line ends are kept as lines", "a\r\nb\r\n", "a\nb\n"],
  ])("%s", (_name, input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });
});
