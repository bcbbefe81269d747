import { applyAnswer } from "./apply-answer.js";

describe("patch (V4A) format", () => {
  it("reads a fenced patch with prose around it and updates with context", () => {
    const answer =
      "Here is the patch:\n\n```\n*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n```\nDone.";
    const r = applyAnswer("patch", answer, { "src/a.py": "def f():\n    return 1\n" });
    expect(r.failures).toEqual([]);
    expect(r.after["src/a.py"]).toBe("def f():\n    return 2\n");
  });

  it("adds a file (fixes Aider's Add File) and refuses to add over an existing one", () => {
    const r = applyAnswer(
      "patch",
      "*** Begin Patch\n*** Add File: lib/new.py\n+x = 1\n+y = 2\n*** Add File: old.py\n+z\n*** End Patch\n",
      { "old.py": "o\n" },
    );
    expect(r.after["lib/new.py"]).toBe("x = 1\ny = 2\n");
    expect(r.reasons).toEqual(["file-exists"]);
    expect(r.after["old.py"]).toBe("o\n");
  });

  it("uses the @@ anchor to pick among repeated code", () => {
    const file = "def a():\n    return 0\n\ndef b():\n    return 0\n";
    const r = applyAnswer(
      "patch",
      "*** Begin Patch\n*** Update File: m.py\n@@ def b():\n-    return 0\n+    return 1\n*** End Patch\n",
      { "m.py": file },
    );
    expect(r.after["m.py"]).toBe("def a():\n    return 0\n\ndef b():\n    return 1\n");
  });

  it("moves and deletes files", () => {
    const answer =
      "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@\n-x = 1\n+x = 2\n*** Delete File: c.py\n*** End Patch\n";
    const r = applyAnswer("patch", answer, { "a.py": "x = 1\n", "c.py": "c\n" });
    expect(r.after).toEqual({ "pkg/b.py": "x = 2\n" });
  });

  it("is whitespace tolerant and reports a chunk that does not match", () => {
    const ok = applyAnswer("patch", "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n", {
      "a.py": "x = 1   \n",
    });
    expect(ok.after["a.py"]).toBe("x = 2\n");
    const bad = applyAnswer("patch", "*** Begin Patch\n*** Update File: a.py\n@@\n-nope\n+x\n*** End Patch\n", {
      "a.py": "x = 1\n",
    });
    expect(bad.reasons).toEqual(["no-match"]);
  });
});
