import fc from "fast-check";
import { findKeyedWindows, findKeyedWindowsInText, findWindows } from "../../../src/edits/match/find-windows.js";
import { locate, type Located } from "../../../src/edits/match/locate.js";
import { reindent } from "../../../src/edits/match/reindent.js";

const L = (s: string) => s.split("|");

/** The file with a unique result's region replaced, or the result itself otherwise. */
function edited(file: string[], r: Located): string[] | Located {
  return r.kind === "unique" ? [...file.slice(0, r.start), ...r.replacement, ...file.slice(r.start + r.length)] : r;
}

describe("locate: one row per rung, in ladder order", () => {
  it.each([
    ["exact", "a|b|c", "b", "B", "a|B|c"],
    ["trailing-whitespace", "a|b  |c", "b", "B", "a|B|c"],
    ["indent", "x|    b|    c", "b|c", "B|c", "x|    B|    c"],
    ["leading-blank", "a|b|c", "|a|b", "A|b", "A|b|c"],
    ["elision", "a|b|c|d", "a|...|d", "A|...|D", "A|b|c|D"],
    ["inner-whitespace", "f(a,  b)|g", "f(a, b)", "h()", "h()|g"],
  ])("%s", (rung, file, search, replace, expected) => {
    const r = locate(L(file), L(search), L(replace));
    expect(r).toMatchObject({ kind: "unique", rung });
    expect(edited(L(file), r)).toEqual(L(expected));
  });

  it("stops at the first rung that finds several places, with 1-based line numbers", () => {
    expect(locate(L("a|b|a"), ["a"], ["x"])).toEqual({ kind: "ambiguous", rung: "exact", lines: [1, 3] });
  });

  it("finds nothing when no rung matches, and uses similarity only when asked", () => {
    const file = L("l1|l2|l3|l4|l5|l6|l7|l8|l9|l10|l11|l12");
    const search = L("l2|l3|l4|l5|TYPO|l7|l8|l9|l10|l11");
    expect(locate(file, search, ["x"])).toEqual({ kind: "none" });
    const similar = locate(file, search, ["x"], { fuzzy: true });
    expect(similar).toMatchObject({ kind: "unique", rung: "similarity" });
    expect(edited(file, similar)).toEqual(["l1", "x", "l12"]);
  });
});

describe("reindent", () => {
  it.each([
    ["adds the file's extra indentation", ["    a", "      b"], ["a", "  b"], ["c", "  d"], ["    c", "      d"]],
    ["removes SEARCH's extra indentation", ["a"], ["  a"], ["  b", "", "  c"], ["b", "", "c"]],
    ["declines a non-uniform offset", ["  a", "b"], ["a", "b"], ["c"], null],
    ["declines what it cannot remove (never `  fobar`)", ["  foo"], ["    foo"], ["bar"], null],
    ["declines mixed tabs and spaces", ["\ta"], ["  a"], ["b"], null],
  ])("%s", (_name, window, search, replace, expected) => {
    expect(reindent(window, search, replace)).toEqual(expected);
  });
});

describe("findWindows", () => {
  it.each([
    [["a", "b", "a", "b"], ["a", "b"], 10, [0, 2]],
    [["a", "b", "a", "b"], ["a", "b"], 1, [0]],
    [["}", "}", "x", "}"], ["}", "x"], 10, [1]],
    [["a"], ["a", "b"], 10, []],
    [["a", "b"], [], 10, []],
  ])("finds %j in %j", (hay, needle, limit, expected) => {
    expect(findWindows(hay, needle, (l) => l, limit)).toEqual(expected);
  });

  it("compares under the given key", () => {
    expect(findWindows(["  a  ", "b"], ["a"], (l) => l.trim())).toEqual([0]);
  });
});

describe("findKeyedWindowsInText", () => {
  it("finds the same places, in the same order, as keying every line", () => {
    const line = fc.constantFrom("a", " a", "a ", "b", "  b  ", "", " ", "ab", "\ta");
    const keys = { exact: (l: string) => l, trailing: (l: string) => l.trimEnd(), trim: (l: string) => l.trim() };
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(line, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("exact", "trailing", "trim"),
        fc.integer({ min: 1, max: 4 }),
        (file, needle, k, limit) => {
          const key = keys[k as keyof typeof keys];
          const text = file.map((l) => `${l}\n`).join("");
          expect(findKeyedWindowsInText(text, file, needle.map(key), key, limit)).toEqual(
            findKeyedWindows(file.map(key), needle.map(key), limit),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
