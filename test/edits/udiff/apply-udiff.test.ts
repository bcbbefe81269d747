import { applyHunk, splitRuns } from "../../../src/edits/udiff/apply-hunk.js";
import { applyUdiff } from "../../../src/edits/udiff/apply-udiff.js";
import { normalizeHunk } from "../../../src/edits/udiff/hunk-lines.js";
import type { Edit } from "../../../src/edits/types.js";
import { applyAnswer } from "../apply-answer.js";

const snap = (files: Record<string, string>) => ({ files: new Map(Object.entries(files)) });
const hunk = (path: string, body: string): Edit => ({ kind: "udiff", path, hunk: body });

describe("normalizeHunk / splitRuns", () => {
  it("turns a removed-and-re-added block into context around the real change (jsdiff)", () => {
    expect(normalizeHunk("-a\n-b\n-c\n+a\n+B\n+c\n")).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "B" },
      { op: " ", text: "c" },
    ]);
  });

  it("reads unprefixed and whitespace-only lines as context", () => {
    expect(normalizeHunk("x\n   \n-y\n")).toEqual([
      { op: " ", text: "x" },
      { op: " ", text: "" },
      { op: "-", text: "y" },
    ]);
  });

  it("splits alternating context and change runs", () => {
    const runs = splitRuns(normalizeHunk(" a\n-b\n c\n+d\n"));
    expect(runs.context.map((r) => r.map((l) => l.text))).toEqual([["a"], ["c"], []]);
    expect(runs.changes.map((r) => r.map((l) => l.op + l.text))).toEqual([["-b"], ["+d"]]);
  });
});

describe("applyUdiff: the matching ladder", () => {
  it.each<[string, string, string, string, string]>([
    ["exact", "a\nb\nc\n", " a\n-b\n+B\n", "a\nB\nc\n", "exact"],
    ["trailing whitespace in the file", "a  \nb\n", " a\n-b\n+B\n", "a  \nB\n", "trailing-whitespace"],
    ["blank context at the edges that the file lacks", "a\nb\n", " \n a\n-b\n+B\n \n", "a\nB\n", "exact"],
    [
      "indentation-insensitive; added lines follow the file",
      "if x:\n        a = 1\n        b = 2\n",
      " a = 1\n-b = 2\n+b = 3\n+c = 4\n",
      "if x:\n        a = 1\n        b = 3\n        c = 4\n",
      "relative-indent",
    ],
    [
      "wrong context edges: less context",
      "one\ntwo\nthree\nfour\n",
      " zero\n two\n-three\n+THREE\n four\n",
      "one\ntwo\nTHREE\nfour\n",
      "less-context",
    ],
    [
      "two change runs, one with stale context",
      "a\nb\nc\nd\ne\n",
      " a\n-b\n+B\n X\n-d\n+D\n",
      "a\nB\nc\nD\ne\n",
      "less-context",
    ],
    [
      "pure insertion after unique context",
      "def f():\n    pass\n",
      ' def f():\n+    """Doc."""\n',
      'def f():\n    """Doc."""\n    pass\n',
      "exact",
    ],
    ["only + lines append (Aider's rule)", "a\n", "+b\n", "a\nb\n", "append"],
  ])("%s", (_case, file, body, expected, rung) => {
    const r = applyUdiff(snap({ f: file }), [hunk("f", body)]);
    expect(r.failed).toEqual([]);
    expect(r.changes.get("f")).toBe(expected);
    expect(r.applied.map((a) => a.rung)).toEqual([rung]);
  });

  it("keeps the file's own text for context lines matched loosely", () => {
    const r = applyUdiff(snap({ f: "  keep me  \nold\n" }), [hunk("f", " keep me\n-old\n+new\n")]);
    expect(r.changes.get("f")).toBe("  keep me  \nnew\n");
  });

  it("replaces ONCE: lines that occur twice are ambiguous, never replaced everywhere (Aider #3883)", () => {
    const file = "hello_world()\nx = 1\nhello_world()\n";
    const r = applyUdiff(snap({ "a.py": file }), [hunk("a.py", "-hello_world()\n+goodbye()\n")]);
    expect(r.changes.size).toBe(0);
    expect(r.failed.map((f) => f.reason)).toEqual(["ambiguous"]);
    expect(r.failed[0]!.message).toContain("lines 1, 3");
  });

  it("less context never picks one of several places", () => {
    const file = "x\nreturn 0\ny\nreturn 0\n";
    const r = applyHunk(file.split("\n").slice(0, -1), normalizeHunk(" nope\n-return 0\n+return 1\n"));
    expect(r.kind).toBe("none");
  });

  it("a failing run fails the whole hunk: its other runs are not kept", () => {
    const r = applyUdiff(snap({ f: "a\nb\nc\n" }), [hunk("f", " a\n-b\n+B\n c\n-missing\n+M\n")]);
    expect(r.changes.size).toBe(0);
    expect(r.failed.map((f) => f.reason)).toEqual(["no-match"]);
  });

  it("says what did not match, in Aider's spirit, with the closest lines as detail", () => {
    const file = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n";
    const r = applyUdiff(snap({ "m.py": file }), [
      hunk("m.py", " def total(xs):\n     s = 0\n     for x in xs:\n-        s += y\n+        s += 2 * x\n"),
    ]);
    expect(r.failed).toHaveLength(1);
    const f = r.failed[0]!;
    expect(f.reason).toBe("no-match");
    expect(f.message).toContain("`m.py` does not contain lines that match this hunk");
    expect(f.message).toContain("don't skip blank lines, comments or docstrings");
    expect(f.message).toContain(
      "these 4 lines:\n```\ndef total(xs):\n    s = 0\n    for x in xs:\n        s += y\n```",
    );
    expect(f.detail).toContain("        s += x");
  });

  it("recognises a hunk that is already applied (Aider #4098)", () => {
    const r = applyUdiff(snap({ f: "a\nB\nc\n" }), [hunk("f", " a\n-b\n+B\n c\n")]);
    expect(r.failed.map((f) => f.reason)).toEqual(["already-applied"]);
  });

  it("applies hunks in order on the updated text, and creates and deletes files", () => {
    const r = applyUdiff(snap({ f: "1\n2\n", gone: "x\n" }), [
      hunk("f", "-1\n+one\n"),
      hunk("f", " one\n-2\n+two\n"),
      { kind: "patch-add", path: "n/new.txt", content: "hi\n" },
      { kind: "patch-delete", path: "gone" },
    ]);
    expect(Object.fromEntries(r.changes)).toEqual({ f: "one\ntwo\n", "n/new.txt": "hi\n", gone: null });
    expect(r.applied.map((a) => a.rung)).toEqual(["exact", "exact", "create", "delete"]);
  });

  it.each<[string, Edit, string]>([
    ["hunk on a missing file", hunk("nope", "-a\n+b\n"), "file-missing"],
    ["delete of a missing file", { kind: "patch-delete", path: "nope" }, "file-missing"],
    ["/dev/null onto an existing, different file", { kind: "patch-add", path: "f", content: "other\n" }, "file-exists"],
    ["a foreign edit kind", { kind: "whole", path: "f", content: "" }, "malformed"],
  ])("fails: %s", (_case, edit, reason) => {
    const r = applyUdiff(snap({ f: "a\n" }), [edit]);
    expect(r.failed.map((f) => f.reason)).toEqual([reason]);
    expect(r.changes.size).toBe(0);
  });
});

describe("udiff through the registry", () => {
  it("reports partial success per hunk: applied hunks counted, the failed one reflected", () => {
    const answer =
      "```diff\n--- a/f.py\n+++ b/f.py\n@@ @@\n-a = 1\n+a = 2\n@@ @@\n-zzz\n+q\n@@ @@\n-c = 3\n+c = 4\n```\n";
    const r = applyAnswer("udiff", answer, { "f.py": "a = 1\nb = 2\nc = 3\n" });
    expect(r.after["f.py"]).toBe("a = 2\nb = 2\nc = 4\n");
    expect(r.result.outcome.applied).toHaveLength(2);
    expect(r.reasons).toEqual(["no-match"]);
    expect(r.result.reflection).toContain("The other 2 edits were applied successfully");
  });
});
