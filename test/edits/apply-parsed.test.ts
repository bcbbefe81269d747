import { applyParsed, parseAndApplyWith } from "../../src/edits/apply-parsed.js";
import { editBlockFormat } from "../../src/edits/editblock/index.js";
import type { ParseResult } from "../../src/edits/types.js";

const fence = ["```", "```"] as const;
const snapshot = { files: new Map([["a.py", "a = 1\n"]]) };

describe("applyParsed", () => {
  it.each<[string, ParseResult, string[]]>([
    [
      "no edits, no shell, no failure → no-edits (docs/behaviour.md#answers-without-edits-are-reported)",
      { edits: [], shell: [], failures: [] },
      ["no-edits"],
    ],
    ["only shell commands → nothing to report", { edits: [], shell: ["npm test"], failures: [] }, []],
    [
      "a parse failure is reported instead of no-edits",
      { edits: [], shell: [], failures: [{ path: "", reason: "malformed", message: "m" }] },
      [],
    ],
  ])("%s", (_name, parse, reasons) => {
    const r = applyParsed(editBlockFormat, parse, snapshot, { chatFiles: ["a.py"], fence });
    expect(r.outcome.failed.map((f) => f.reason)).toEqual(reasons);
    expect(r.reflection === null).toBe(reasons.length === 0 && parse.failures.length === 0);
  });

  it("keeps parse failures out of outcome.failed but in the reflection", () => {
    const answer =
      "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\na.py\n```\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n";
    const r = parseAndApplyWith(editBlockFormat, answer, snapshot, { chatFiles: ["a.py"], fence });
    expect(r.parse.failures.map((f) => f.reason)).toEqual(["missing-filename"]);
    expect(r.outcome.failed).toEqual([]);
    expect(r.outcome.changes.get("a.py")).toBe("a = 2\n");
    expect(r.reflection).toContain("names no file");
    expect(r.reflection).toContain("The other 1 edit was applied successfully");
  });
});
