import { applyWhole } from "../../../src/edits/whole/apply-whole.js";
import { applyAnswer } from "../apply-answer.js";

const snapshot = (files: Record<string, string>) => ({ files: new Map(Object.entries(files)) });

describe("applyWhole", () => {
  it("replaces existing files (rung whole) and creates new ones (rung create)", () => {
    const r = applyWhole(snapshot({ "a.txt": "old\n" }), [
      { kind: "whole", path: "a.txt", content: "new\n" },
      { kind: "whole", path: "deep/new/b.txt", content: "b\n" },
    ]);
    expect([...r.changes]).toEqual([
      ["a.txt", "new\n"],
      ["deep/new/b.txt", "b\n"],
    ]);
    expect(r.applied.map((a) => a.rung)).toEqual(["whole", "create"]);
  });

  it("refuses an elided listing, names the line and asks for the complete file (docs/behaviour.md#whole-file-fixes)", () => {
    const r = applyWhole(snapshot({ "m.ts": "a\nb\n" }), [
      { kind: "whole", path: "m.ts", content: "a2\n// ... rest of file unchanged ...\n" },
    ]);
    expect(r.changes.size).toBe(0);
    expect(r.failed.map((f) => f.reason)).toEqual(["elided"]);
    expect(r.failed[0]!.message).toContain("line 2 is `// ... rest of file unchanged ...`");
    expect(r.failed[0]!.message).toContain("Send the complete file");
  });

  it("writes a listing whose elision-like comment is already in the file", () => {
    const file = "x = 1\n# ... existing code ...\n";
    const r = applyWhole(snapshot({ "m.py": file }), [
      { kind: "whole", path: "m.py", content: "x = 2\n# ... existing code ...\n" },
    ]);
    expect(r.failed).toEqual([]);
    expect(r.changes.get("m.py")).toBe("x = 2\n# ... existing code ...\n");
  });

  it("reports other edit kinds as malformed", () => {
    const r = applyWhole(snapshot({}), [{ kind: "patch-delete", path: "a" }]);
    expect(r.failed.map((f) => f.reason)).toEqual(["malformed"]);
  });

  it("through the registry: the reflection asks for the complete file; other listings still apply", () => {
    const answer = "a.py\n```python\nx = 2\n# ... rest of the file unchanged ...\n```\n\nb.py\n```python\ny = 2\n```\n";
    const r = applyAnswer("whole", answer, { "a.py": "x = 1\nz = 3\n", "b.py": "y = 1\n" });
    expect(r.after).toEqual({ "a.py": "x = 1\nz = 3\n", "b.py": "y = 2\n" });
    expect(r.reasons).toEqual(["elided"]);
    expect(r.result.reflection).toContain("complete file");
    expect(r.result.reflection).toContain("applied successfully");
  });

  it("keeps a CRLF file's line endings when its listing is written", () => {
    const r = applyAnswer("whole", "w.bat\n```bat\necho a\necho b\n```\n", { "w.bat": "echo a\r\n" });
    expect(r.after["w.bat"]).toBe("echo a\r\necho b\r\n");
  });
});
