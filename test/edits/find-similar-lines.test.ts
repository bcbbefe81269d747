import fc from "fast-check";
import { findSimilarLines, scoreWindows } from "../../src/edits/find-similar-lines.js";
import { sequenceRatio } from "../../src/edits/sequence-matcher.js";

/** Aider's find_similar_lines as specified in docs/behaviour.md#failed-edits: every window scored, the first best kept. */
function reference(search: string[], file: string[], threshold = 0.6): string {
  let best = 0;
  let at = -1;
  for (let i = 0; i + search.length <= file.length; i++) {
    const r = sequenceRatio(search, file.slice(i, i + search.length));
    if (r > best) {
      best = r;
      at = i;
    }
  }
  if (at < 0 || best < threshold) return "";
  const chunk = file.slice(at, at + search.length);
  if (chunk[0] === search[0] && chunk[chunk.length - 1] === search[search.length - 1]) return chunk.join("\n");
  return file.slice(Math.max(0, at - 5), Math.min(file.length, at + search.length + 5)).join("\n");
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`);

describe("findSimilarLines", () => {
  it.each([
    [
      "returns the window itself when its first and last lines equal SEARCH's",
      ["line 3", "changed", "line 5"],
      numbered(20),
      "line 3\nline 4\nline 5",
    ],
    [
      "widens by 5 lines when the ends differ",
      ["changed", "line 10", "line 11", "line 12"],
      numbered(30),
      numbered(30).slice(4, 18).join("\n"),
    ],
    [
      "clamps the widening at the file's edges",
      ["x", "line 0", "line 1", "line 2"],
      numbered(4),
      numbered(4).join("\n"),
    ],
    ["is empty below 0.6 (two lines, one differing, is 0.5)", ["line 1", "nope"], numbered(5), ""],
    ["is empty when the file is shorter than SEARCH", ["a", "b", "c"], ["a"], ""],
    ["is empty for an empty SEARCH", [], numbered(5), ""],
  ])("%s", (_name, search, file, expected) => {
    expect(findSimilarLines(search, file)).toBe(expected);
    expect(findSimilarLines(search, file)).toBe(reference(search, file));
  });

  it("gives exactly what scoring every window gives (the pruning loses nothing)", () => {
    const line = fc.constantFrom("a", "b", "c", "d", "}", "", "  x");
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.array(line, { maxLength: 60 }), (search, file) => {
        expect(findSimilarLines(search, file)).toBe(reference(search, file));
      }),
      { numRuns: 500 },
    );
  });

  it("scoreWindows reports the best other window, shifted ones included", () => {
    const file = ["q", "a", "b", "c", "d", "x", "x", "x", "a", "b", "c", "z"];
    const { best, runnerUp } = scoreWindows(["a", "b", "c", "d"], file, 0.5, true);
    expect(best).toEqual({ start: 1, ratio: 1 });
    // [a, b, c, z] at 8 and the shifted [b, c, d, x] at 2 both score 3/4; the first one found is kept.
    expect(runnerUp).toEqual({ start: 0, ratio: 0.75 });
  });
});
