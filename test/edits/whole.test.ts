import { applyAnswer } from "./apply-answer.js";

describe("whole format", () => {
  it("writes a listing named by the line before the fence, `**a.txt**:` included (fixes `a.txt**`)", () => {
    const r = applyAnswer("whole", "Here you go.\n\n**a.txt**:\n```\nnew content\n```\n", {
      "a.txt": "old\n",
      "b.txt": "b\n",
    });
    expect(r.failures).toEqual([]);
    expect(r.after["a.txt"]).toBe("new content\n");
  });

  it("keeps nested fences inside a Markdown listing (docs/behaviour.md#whole-file-fixes)", () => {
    const md = "# Doc\n\n```bash\nnpm test\n```\n\nEnd.\n";
    const r = applyAnswer("whole", `README.md\n\`\`\`markdown\n${md}\`\`\`\n`, { "README.md": "old\n" });
    expect(r.after["README.md"]).toBe(md);
  });

  it("refuses a listing that elides code instead of destroying the file (docs/behaviour.md#whole-file-fixes, Aider #1915)", () => {
    const file = "def a():\n    return 1\n\ndef b():\n    return 2\n";
    const r = applyAnswer(
      "whole",
      "m.py\n```python\ndef a():\n    return 10\n\n# ... rest of the file unchanged ...\n```\n",
      { "m.py": file },
    );
    expect(r.reasons).toEqual(["elided"]);
    expect(r.after["m.py"]).toBe(file);
    expect(r.result.reflection).toContain("complete file");
  });

  it("falls back to the only chat file and to a backtick mention", () => {
    expect(applyAnswer("whole", "```\nx\n```\n", { "only.txt": "a\n" }).after["only.txt"]).toBe("x\n");
    const r = applyAnswer("whole", "Update `b.txt`:\n\n```\nnew b\n```\n", { "a.txt": "a\n", "b.txt": "b\n" });
    expect(r.after["b.txt"]).toBe("new b\n");
  });

  it("creates a new file in a new folder; the first of two listings of one file wins", () => {
    const r = applyAnswer(
      "whole",
      "src/deep/new.ts\n```ts\nexport const a = 1;\n```\n\nsrc/deep/new.ts\n```ts\nsecond\n```\n",
      {},
    );
    expect(r.after["src/deep/new.ts"]).toBe("export const a = 1;\n");
  });

  it("reports a listing with no filename when several files are in the chat", () => {
    const r = applyAnswer("whole", "```\nx\n```\n", { "a.txt": "a\n", "b.txt": "b\n" });
    expect(r.reasons).toEqual(["missing-filename"]);
  });
});
