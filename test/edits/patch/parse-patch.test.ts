import { parsePatch } from "../../../src/edits/patch/parse-patch.js";
import type { Edit } from "../../../src/edits/types.js";

const ctx = { fence: ["```", "```"] as const, chatFiles: [] };
const P = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;

describe("parsePatch", () => {
  it.each<[string, string, Edit[]]>([
    [
      "bare patch",
      P("*** Update File: a.py\n@@\n-x\n+y\n"),
      [{ kind: "patch-update", path: "a.py", body: "@@\n-x\n+y\n" }],
    ],
    [
      "prose before and after (Aider: 'Unknown or misplaced line')",
      `I'll fix it.\n\n${P("*** Delete File: a.py\n")}\nDone!`,
      [{ kind: "patch-delete", path: "a.py" }],
    ],
    [
      "inside a ``` fence",
      `Patch:\n\`\`\`\n${P("*** Delete File: a.py\n")}\`\`\`\n`,
      [{ kind: "patch-delete", path: "a.py" }],
    ],
    [
      "no Begin marker: starts at the first section, ends at the fence",
      "```diff\n*** Delete File: a.py\n```\nthanks",
      [{ kind: "patch-delete", path: "a.py" }],
    ],
    [
      "no End marker: reads to the end",
      "*** Begin Patch\n*** Add File: n.txt\n+x\n",
      [{ kind: "patch-add", path: "n.txt", content: "x\n" }],
    ],
    [
      "Add File: blank lines are empty lines, trailing blanks are spacing",
      P("*** Add File: dir/n.md\n+# T\n\n+body\n\n"),
      [{ kind: "patch-add", path: "dir/n.md", content: "# T\n\nbody\n" }],
    ],
    [
      "Add File with no lines creates an empty file",
      P("*** Add File: empty.txt\n"),
      [{ kind: "patch-add", path: "empty.txt", content: "" }],
    ],
    [
      "Move to",
      P("*** Update File: a.py\n*** Move to: b/c.py\n@@\n-x\n+y\n"),
      [{ kind: "patch-update", path: "a.py", moveTo: "b/c.py", body: "@@\n-x\n+y\n" }],
    ],
    [
      "repeated Update sections are merged",
      P("*** Update File: a.py\n@@\n-x\n+y\n*** Update File: a.py\n@@\n-z\n+w\n"),
      [{ kind: "patch-update", path: "a.py", body: "@@\n-x\n+y\n@@\n-z\n+w\n" }],
    ],
    [
      "a repeated Delete is kept once",
      P("*** Delete File: a.py\n*** Delete File: a.py\n"),
      [{ kind: "patch-delete", path: "a.py" }],
    ],
    ["backticked path", P("*** Delete File: `src/a.py`\n"), [{ kind: "patch-delete", path: "src/a.py" }]],
    [
      "two patches in one answer",
      `${P("*** Delete File: a.py\n")}\nand also\n\n${P("*** Delete File: b.py\n")}`,
      [
        { kind: "patch-delete", path: "a.py" },
        { kind: "patch-delete", path: "b.py" },
      ],
    ],
    [
      "CRLF answer",
      "*** Begin Patch\r\n*** Add File: a.txt\r\n+x\r\n*** End Patch\r\n",
      [{ kind: "patch-add", path: "a.txt", content: "x\n" }],
    ],
    [
      "a context line with a fence inside an Update body is content",
      P("*** Update File: R.md\n@@\n ```\n-a\n+b\n"),
      [{ kind: "patch-update", path: "R.md", body: "@@\n ```\n-a\n+b\n" }],
    ],
  ])("%s", (_case, answer, edits) => {
    const r = parsePatch(answer, ctx);
    expect(r.failures).toEqual([]);
    expect(r.edits).toEqual(edits);
  });

  it.each([
    [
      "an Add File line without +",
      P("*** Add File: a.py\n+ok\nnot ok\n"),
      "malformed",
      "every line of the new file must start with `+`",
    ],
    [
      "two different actions on one file",
      P("*** Add File: a.py\n+x\n*** Delete File: a.py\n"),
      "malformed",
      "more than one action",
    ],
    ["a section with no path", P("*** Delete File:\n"), "missing-filename", "names no file"],
  ])("fails: %s", (_case, answer, reason, text) => {
    const r = parsePatch(answer, ctx);
    expect(r.failures.map((f) => f.reason)).toEqual([reason]);
    expect(r.failures[0]!.message).toContain(text);
  });

  it("finds nothing in an answer without a patch", () => {
    expect(parsePatch("I think the code is fine as is.\n", ctx)).toEqual({ edits: [], shell: [], failures: [] });
  });
});
