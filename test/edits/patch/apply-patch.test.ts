import { applyPatch } from "../../../src/edits/patch/apply-patch.js";
import { applyUpdate } from "../../../src/edits/patch/apply-update.js";
import { patchChunks } from "../../../src/edits/patch/patch-chunks.js";
import type { Edit } from "../../../src/edits/types.js";
import { applyAnswer } from "../apply-answer.js";

const snap = (files: Record<string, string>) => ({ files: new Map(Object.entries(files)) });
const update = (path: string, body: string, moveTo?: string): Edit => ({
  kind: "patch-update",
  path,
  body,
  ...(moveTo ? { moveTo } : {}),
});

describe("patchChunks", () => {
  it("reads anchors, ops, blank context and the End of File marker", () => {
    const parsed = patchChunks("\n@@ class A\n@@ def f():\n a\n\n-b\n+c\n@@\n x\n+y\n*** End of File\n\n");
    expect(parsed.ok && parsed.value).toEqual([
      {
        anchors: ["class A", "def f():"],
        eof: false,
        lines: [
          { op: " ", text: "a" },
          { op: " ", text: "" },
          { op: "-", text: "b" },
          { op: "+", text: "c" },
        ],
      },
      {
        anchors: [],
        eof: true,
        lines: [
          { op: " ", text: "x" },
          { op: "+", text: "y" },
        ],
      },
    ]);
  });

  it("rejects a stray *** line", () => {
    expect(patchChunks("@@\n-a\n*** Bogus\n")).toEqual({
      ok: false,
      reason: "malformed",
      message: expect.stringContaining("`*** Bogus`"),
    });
  });
});

describe("applyUpdate", () => {
  it.each<[string, string, string, string, string]>([
    ["exact", "a\nb\nc\n", "@@\n a\n-b\n+B\n", "a\nB\nc\n", "exact"],
    ["trailing whitespace", "a \nb\t\n", "@@\n a\n-b\n+B\n", "a \nB\n", "trailing-whitespace"],
    [
      "indentation: added lines follow the file",
      "def f():\n    x = 1\n    y = 2\n",
      "@@\n x = 1\n-y = 2\n+y = 3\n",
      "def f():\n    x = 1\n    y = 3\n",
      "indent",
    ],
    [
      "unprefixed context line (models drop the space)",
      "def f():\n    return 1\n",
      "@@\ndef f():\n-    return 1\n+    return 2\n",
      "def f():\n    return 2\n",
      "exact",
    ],
    ["chunks out of order are still found", "a\nb\nc\n", "@@\n-c\n+C\n@@\n-a\n+A\n", "A\nb\nC\n", "exact"],
    [
      "anchor that is the first context line",
      "x\ndef f():\n    pass\n",
      "@@ def f():\n def f():\n-    pass\n+    return 1\n",
      "x\ndef f():\n    return 1\n",
      "exact",
    ],
    [
      "anchor as a prefix of the file's line",
      "class Foo(Base):\n    a = 1\n",
      "@@ class Foo\n-    a = 1\n+    a = 2\n",
      "class Foo(Base):\n    a = 2\n",
      "exact",
    ],
    [
      "only + lines after an anchor insert right after it",
      "[deps]\nx = 1\n",
      "@@ [deps]\n+y = 2\n",
      "[deps]\ny = 2\nx = 1\n",
      "exact",
    ],
    [
      "End of File: the repeated tail at the end is picked",
      "end\nmid\nend\n",
      "@@\n-end\n+END\n*** End of File\n",
      "end\nmid\nEND\n",
      "exact",
    ],
    ["only + lines with End of File append", "a\n", "@@\n+b\n*** End of File\n", "a\nb\n", "exact"],
    ["an empty file takes only + lines", "", "@@\n+first\n", "first\n", "exact"],
  ])("%s", (_case, file, body, expected, rung) => {
    expect(applyUpdate(file, body, "f")).toEqual({ ok: true, value: { content: expected, rung } });
  });

  it("is ambiguous when the context matches twice and no anchor narrows it (V4A takes the first)", () => {
    const r = applyUpdate("x = 1\ny\nx = 1\n", "@@\n-x = 1\n+x = 2\n", "f");
    expect(r).toMatchObject({ ok: false, reason: "ambiguous" });
    expect(!r.ok && r.message).toContain("lines 1, 3");
  });

  it("an anchor picks the match inside its own block when the rest of the file repeats it", () => {
    const file = "def a():\n    return 0\n\ndef b():\n    return 0\n\ndef c():\n    return 0\n";
    const r = applyUpdate(file, "@@ def b():\n-    return 0\n+    return 1\n", "f");
    expect(r).toEqual({
      ok: true,
      value: { content: file.replace("def b():\n    return 0", "def b():\n    return 1"), rung: "exact" },
    });
  });

  it.each([
    ["context not in the file", "a\nb\n", "@@\n-zzz\n+y\n", "no-match", "does not contain these 1 line"],
    ["an anchor not in the file", "a\n", "@@ def nope():\n-a\n+b\n", "no-match", "has no line `def nope():`"],
    ["only + lines with nothing to place them by", "a\n", "@@\n+b\n", "malformed", "no telling where they go"],
    ["a stray *** line", "a\n", "@@\n-a\n*** Oops\n", "malformed", "not a valid line"],
  ])("fails: %s", (_case, file, body, reason, text) => {
    const r = applyUpdate(file, body, "f");
    expect(r).toMatchObject({ ok: false, reason });
    expect(!r.ok && r.message).toContain(text);
  });

  it("a failing chunk fails the whole update (no half-patched file)", () => {
    expect(applyUpdate("a\nb\n", "@@\n-a\n+A\n@@\n-zzz\n+Z\n", "f").ok).toBe(false);
  });
});

describe("applyPatch", () => {
  it("adds, deletes, updates and moves; a move deletes the old path", () => {
    const r = applyPatch(snap({ "a.py": "x = 1\n", "old.py": "o\n" }), [
      { kind: "patch-add", path: "new/dir/n.py", content: "n\n" },
      { kind: "patch-delete", path: "old.py" },
      update("a.py", "@@\n-x = 1\n+x = 2\n", "pkg/a.py"),
    ]);
    expect(Object.fromEntries(r.changes)).toEqual({
      "new/dir/n.py": "n\n",
      "old.py": null,
      "a.py": null,
      "pkg/a.py": "x = 2\n",
    });
    expect(r.applied.map((a) => [a.path, a.rung])).toEqual([
      ["new/dir/n.py", "create"],
      ["old.py", "delete"],
      ["pkg/a.py", "move"],
    ]);
  });

  it.each<[string, Edit, string]>([
    ["Add File over an existing file", { kind: "patch-add", path: "a.py", content: "z\n" }, "file-exists"],
    ["Delete File of a missing file", { kind: "patch-delete", path: "nope.py" }, "file-missing"],
    ["Update File of a missing file", update("nope.py", "@@\n-a\n+b\n"), "file-missing"],
    ["Move to an existing file", update("a.py", "@@\n-x = 1\n+x = 2\n", "b.py"), "file-exists"],
    ["a foreign edit kind", { kind: "whole", path: "a.py", content: "" }, "malformed"],
  ])("fails: %s", (_case, edit, reason) => {
    const r = applyPatch(snap({ "a.py": "x = 1\n", "b.py": "b\n" }), [edit]);
    expect(r.failed.map((f) => f.reason)).toEqual([reason]);
    expect(r.changes.size).toBe(0);
  });

  it("keeps going after a failed section (Aider stops at the first error)", () => {
    const r = applyPatch(snap({ "a.py": "x = 1\n" }), [
      update("a.py", "@@\n-nope\n+y\n"),
      { kind: "patch-add", path: "b.py", content: "b\n" },
    ]);
    expect(r.failed.map((f) => f.reason)).toEqual(["no-match"]);
    expect(Object.fromEntries(r.changes)).toEqual({ "b.py": "b\n" });
  });
});

describe("patch through the registry", () => {
  it("Add File of a new file works (Aider's pre-created file made it fail)", () => {
    const r = applyAnswer("patch", "*** Begin Patch\n*** Add File: docs/ünï.md\n+# Hï\n*** End Patch\n", {});
    expect(r.failures).toEqual([]);
    expect(r.after).toEqual({ "docs/ünï.md": "# Hï\n" });
  });

  it("keeps CRLF line endings of an updated file", () => {
    const r = applyAnswer("patch", "*** Begin Patch\n*** Update File: w.bat\n@@\n-echo a\n+echo b\n*** End Patch\n", {
      "w.bat": "@echo off\r\necho a\r\n",
    });
    expect(r.after["w.bat"]).toBe("@echo off\r\necho b\r\n");
  });
});
