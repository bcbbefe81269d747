import fc from "fast-check";
import { replaceInText, type ReplaceResult } from "../../../src/edits/editblock/replace-in-text.js";
import { locate } from "../../../src/edits/match/locate.js";
import { joinLines, splitLines } from "../../../src/edits/match/split-lines.js";

/**
 * The path before issue #15: every rung on lines (exact included), the edited file rebuilt as a whole and joined.
 * `replaceInText` now finds exact matches in the text and splices by offsets; its results must be the same bytes.
 */
function linesPath(content: string, search: string, replace: string, fuzzy: boolean): ReplaceResult {
  const file = splitLines(content);
  const found = locate(file, splitLines(search), splitLines(replace), { fuzzy });
  if (found.kind === "ambiguous") return { kind: "ambiguous", lines: found.lines };
  if (found.kind === "none") return found;
  const lines = [...file.slice(0, found.start), ...found.replacement, ...file.slice(found.start + found.length)];
  return { kind: "ok", content: joinLines(lines), rung: found.rung };
}

// Few distinct lines, with indentation, trailing blanks, tabs and `...`, so every rung and ambiguity comes up.
const line = fc.constantFrom(
  "a",
  "b",
  "  a",
  "    b",
  "\tc",
  "c  ",
  "d(x,  y)",
  "d(x, y)",
  "",
  "  ",
  "...",
  "e",
  "f = 1",
  "  f = 1 ",
);
const text = (ls: string[], finalNewline: boolean) => (ls.length ? ls.join("\n") + (finalNewline ? "\n" : "") : "");

describe("replaceInText gives the same bytes as the whole-file line path", () => {
  it("on random files, SEARCH texts and REPLACE texts", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 25 }),
        fc.boolean(),
        fc.nat(),
        fc.array(line, { minLength: 1, maxLength: 6 }),
        fc.array(line, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        (fileLines, finalNewline, at, own, replaceLines, fromFile, fuzzy) => {
          const content = text(fileLines, finalNewline);
          // Half the time SEARCH is a window of the file itself, so unique and ambiguous exact matches are common.
          const start = fileLines.length ? at % fileLines.length : 0;
          const window = fromFile && fileLines.length ? fileLines.slice(start, start + own.length) : own;
          const search = `${window.join("\n")}\n`;
          fc.pre(search.trim() !== "");
          const replace = text(replaceLines, true);
          expect(replaceInText(content, search, replace, { fuzzy })).toEqual(
            linesPath(content, search, replace, fuzzy),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["exact at the end of a file without a final newline", "a\nb", "b\n", "B\n", "a\nB\n"],
    ["exact overlapping places are ambiguous", "a\na\na\n", "a\na\n", "x\n", null],
    ["a line that only contains SEARCH's text is not a match", "xa\nb\n", "a\n", "A\n", null],
    [
      "elision region in the middle",
      "1\n2\n3\n4\n5\n",
      "2\n...\n4\n",
      "two\n...\nfour\nmore\n",
      "1\ntwo\n3\nfour\nmore\n5\n",
    ],
  ])("%s", (_name, content, search, replace, expected) => {
    const r = replaceInText(content, search, replace);
    expect(r).toEqual(linesPath(content, search, replace, false));
    if (expected !== null) expect(r).toMatchObject({ kind: "ok", content: expected });
  });
});
