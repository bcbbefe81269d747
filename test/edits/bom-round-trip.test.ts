import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseAndApply } from "../../src/edits/registry.js";
import type { EditFormatName } from "../../src/edits/types.js";
import { createFsWorkspace } from "../../src/workspace/create-fs-workspace.js";
import { exec } from "../workspace/git-fixtures.js";
import { applyAnswer, block } from "./apply-answer.js";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One answer per format that changes the first line (next to the BOM) and the last one of `m.py`. */
const ANSWERS: Record<EditFormatName, string> = {
  diff: block("m.py", "def f():\n    return 1\n", "def g():\n    return 2\n"),
  "diff-fenced":
    "```python\nm.py\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\ndef g():\n    return 2\n>>>>>>> REPLACE\n```\n",
  whole: "m.py\n```python\ndef g():\n    return 2\n```\n",
  udiff: "```diff\n--- a/m.py\n+++ b/m.py\n@@ @@\n-def f():\n-    return 1\n+def g():\n+    return 2\n```\n",
  patch:
    "*** Begin Patch\n*** Update File: m.py\n@@\n-def f():\n-    return 1\n+def g():\n+    return 2\n*** End Patch\n",
};

describe("a file's UTF-8 BOM and line endings survive every edit format", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "bom-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each(
    Object.keys(ANSWERS).flatMap((f) => [
      [f, "\n"],
      [f, "\r\n"],
    ]),
  )("%s keeps the BOM on disk (eol %j)", async (format, eol) => {
    const abs = path.join(root, "m.py");
    await writeFile(abs, Buffer.concat([BOM, Buffer.from(`def f():${eol}    return 1${eol}`)]));
    const ws = createFsWorkspace(root, exec);
    const result = parseAndApply(format, ANSWERS[format as EditFormatName], await ws.read(["m.py"]), {
      fence: ["```", "```"],
      chatFiles: ["m.py"],
    });
    expect([...result.parse.failures, ...result.outcome.failed]).toEqual([]);
    await ws.write(result.outcome.changes);
    expect(await readFile(abs)).toEqual(Buffer.concat([BOM, Buffer.from(`def g():${eol}    return 2${eol}`)]));
  });

  it("keeps the BOM when SEARCH names the first line, does not double one a listing repeats, gives none to other files", () => {
    const first = applyAnswer("diff", block("a.py", "x = 1\n", "x = 2\n"), { "a.py": "\uFEFFx = 1\n" });
    expect(first.after["a.py"]).toBe("\uFEFFx = 2\n");
    expect(first.result.outcome.applied[0]!.rung).toBe("exact");
    const r = applyAnswer(
      "whole",
      "a.py\n```\n\uFEFFx = 2\n```\nb.py\n```\ny = 1\n```\n",
      { "a.py": "\uFEFFx = 1\r\n", "c.py": "z\n" },
      { chatFiles: ["a.py", "c.py"] },
    );
    expect(r.after["a.py"]).toBe("\uFEFFx = 2\r\n");
    expect(r.after["b.py"]).toBe("y = 1\n");
    const plain = applyAnswer("diff", block("c.py", "z\n", "w\n"), { "c.py": "z\n" });
    expect(plain.after["c.py"]).toBe("w\n");
  });

  it("leaves a file untouched when an edit changes nothing but would drop the BOM", () => {
    const r = applyAnswer("whole", "a.py\n```\nx = 1\n```\n", { "a.py": "\uFEFFx = 1\n" });
    expect(r.result.outcome.changes.size).toBe(0);
  });
});
