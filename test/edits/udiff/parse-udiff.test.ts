import { parseUdiff } from "../../../src/edits/udiff/parse-udiff.js";
import type { Edit } from "../../../src/edits/types.js";

const ctx = (files: string[] = []) => ({ fence: ["```", "```"] as const, chatFiles: files, repoFiles: files });
const udiff = (path: string, hunk: string): Edit => ({ kind: "udiff", path, hunk });

describe("parseUdiff", () => {
  it.each<[string, string, Edit[]]>([
    [
      "```diff fence with prose around",
      "Change:\n```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```\nDone.",
      [udiff("x.py", "-a\n+b\n")],
    ],
    [
      "plain ``` fence (Aider reads only ```diff)",
      "```\n--- a/x.py\n+++ b/x.py\n@@ @@\n-a\n+b\n```\n",
      [udiff("x.py", "-a\n+b\n")],
    ],
    ["```` fence", "````diff\n--- x.py\n+++ x.py\n@@ @@\n-a\n+b\n````\n", [udiff("x.py", "-a\n+b\n")]],
    ["no fence at all", "Here:\n\n--- a/x.py\n+++ b/x.py\n@@ @@\n-a\n+b\n\nThat's it.\n", [udiff("x.py", "-a\n+b\n")]],
    [
      "unterminated fence keeps its last line (Aider drops it)",
      "```diff\n--- a/x.py\n+++ b/x.py\n@@ @@\n a\n+b",
      [udiff("x.py", " a\n+b\n")],
    ],
    [
      "b/ stripped on the second file too (Aider keeps `b/y.py`)",
      "```diff\n--- a/x.py\n+++ b/x.py\n@@ @@\n-x\n+X\n--- a/y.py\n+++ b/y.py\n@@ @@\n-y\n+Y\n```\n",
      [udiff("x.py", "-x\n+X\n"), udiff("y.py", "-y\n+Y\n")],
    ],
    [
      "`@@` splits hunks; a hunk without a header inherits the file",
      "```diff\n--- a/x\n+++ b/x\n@@ @@\n-1\n+2\n@@ @@\n-3\n+4\n```",
      [udiff("x", "-1\n+2\n"), udiff("x", "-3\n+4\n")],
    ],
    [
      "context-only hunks are dropped",
      "```diff\n--- a/x\n+++ b/x\n@@ @@\n a\n b\n@@ @@\n-c\n+d\n```",
      [udiff("x", "-c\n+d\n")],
    ],
    [
      "identical hunks are kept once",
      "```diff\n--- a/x\n+++ b/x\n@@ @@\n-c\n+d\n@@ @@\n-c\n+d\n```",
      [udiff("x", "-c\n+d\n")],
    ],
    [
      "a blank line inside a hunk is blank context",
      "```diff\n--- a/x\n+++ b/x\n@@ @@\n a\n\n-b\n+c\n```",
      [udiff("x", " a\n \n-b\n+c\n")],
    ],
    [
      "timestamps and git's extended headers are ignored",
      "```diff\ndiff --git a/x.c b/x.c\nindex 83db48f..bf269f4 100644\n--- a/x.c\t2024-01-01 10:00:00.000 +0000\n+++ b/x.c\t2024-01-02 10:00:00.000 +0000\n@@ -1 +1 @@\n-int a;\n+long a;\n\\ No newline at end of file\n```",
      [udiff("x.c", "-int a;\n+long a;\n")],
    ],
    [
      "`+++` without `---` names the file (Aider: IndexError, PR #5369)",
      "```diff\n+++ b/x.py\n@@ @@\n-a\n+b\n```",
      [udiff("x.py", "-a\n+b\n")],
    ],
    [
      "paths with spaces",
      "```diff\n--- a/my docs/read me.md\n+++ b/my docs/read me.md\n@@ @@\n-a\n+b\n```",
      [udiff("my docs/read me.md", "-a\n+b\n")],
    ],
    [
      "`--- /dev/null` creates a file, content from the + lines of all its hunks",
      "```diff\n--- /dev/null\n+++ b/new/dir/f.txt\n@@ -0,0 +1,2 @@\n+one\n+\n@@ @@\n+two\n```",
      [{ kind: "patch-add", path: "new/dir/f.txt", content: "one\n\ntwo\n" }],
    ],
    [
      "`+++ /dev/null` deletes a file; its `-` lines are not a hunk",
      "```diff\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n```",
      [{ kind: "patch-delete", path: "old.txt" }],
    ],
    [
      "mid-hunk `--- x`/`+++ y` without a following @@ are removed/added lines",
      "```diff\n--- a/q.sql\n+++ b/q.sql\n@@ @@\n--- old comment\n+++ new comment\n SELECT 1;\n```",
      [udiff("q.sql", "--- old comment\n+++ new comment\n SELECT 1;\n")],
    ],
  ])("%s", (_case, answer, edits) => {
    const r = parseUdiff(answer, ctx());
    expect(r.failures).toEqual([]);
    expect(r.edits).toEqual(edits);
  });

  it("keeps b/ when the repository really has a folder named b/", () => {
    const r = parseUdiff("```diff\n--- b/x.py\n+++ b/x.py\n@@ @@\n-a\n+b\n```", ctx(["b/x.py"]));
    expect(r.edits).toEqual([udiff("b/x.py", "-a\n+b\n")]);
  });

  it("strips a lone b/ when the stripped path is a known file", () => {
    const r = parseUdiff("```diff\n--- x.py\n+++ b/x.py\n@@ @@\n-a\n+b\n```", ctx(["x.py"]));
    expect(r.edits).toEqual([udiff("x.py", "-a\n+b\n")]);
  });

  it("reports a hunk with no file header as missing-filename instead of crashing", () => {
    const r = parseUdiff("```diff\n@@ @@\n-a\n+b\n```\n", ctx(["a.txt"]));
    expect(r.edits).toEqual([]);
    expect(r.failures.map((f) => f.reason)).toEqual(["missing-filename"]);
  });

  it("ignores Markdown bullets outside a diff", () => {
    expect(parseUdiff("Plan:\n- first\n+ second\n", ctx()).edits).toEqual([]);
  });
});
