import { parseAndApply } from "../../src/edits/registry.js";
import type { ApplyOptions, EditFormatName } from "../../src/edits/types.js";
import { block } from "./apply-answer.js";

function run(
  format: EditFormatName,
  answer: string,
  files: Record<string, string>,
  limits: Partial<ApplyOptions> = {},
) {
  return parseAndApply(
    format,
    answer,
    { files: new Map(Object.entries(files)) },
    { fence: ["```", "```"], chatFiles: Object.keys(files), ...limits },
  );
}

const newFiles = (n: number) => Array.from({ length: n }, (_, i) => block(`gen/f${i}.py`, "", `x = ${i}\n`)).join("\n");

describe("per-answer caps on files created and bytes written", () => {
  it("changes nothing when an answer creates more than 1,000 files by default, and says why", () => {
    const over = run("diff", newFiles(1_001), { "a.py": "a\n" });
    expect(over.outcome.changes.size).toBe(0);
    expect(over.outcome.applied).toEqual([]);
    expect(over.outcome.failed.map((f) => f.reason)).toEqual(["over-limit"]);
    expect(over.reflection).toContain(
      "creates 1,001 new files; one answer may create at most 1,000. Nothing was changed.",
    );
    expect(run("diff", newFiles(1_000), { "a.py": "a\n" }).outcome.changes.size).toBe(1_000);
  });

  it.each<[EditFormatName, string]>([
    ["whole", "a.txt\n```\n1\n```\nb.txt\n```\n2\n```\nc.txt\n```\n3\n```\n"],
    [
      "patch",
      "*** Begin Patch\n*** Add File: a.txt\n+1\n*** Add File: b.txt\n+2\n*** Add File: c.txt\n+3\n*** End Patch\n",
    ],
    [
      "udiff",
      "```diff\n--- /dev/null\n+++ b/a.txt\n@@ @@\n+1\n--- /dev/null\n+++ b/b.txt\n@@ @@\n+2\n--- /dev/null\n+++ b/c.txt\n@@ @@\n+3\n```\n",
    ],
  ])("%s: the new-file cap is an option", (format, answer) => {
    expect(run(format, answer, { "x.txt": "x\n" }, { maxNewFiles: 3 }).outcome.changes.size).toBe(3);
    const over = run(format, answer, { "x.txt": "x\n" }, { maxNewFiles: 2 });
    expect(over.outcome.changes.size).toBe(0);
    expect(over.outcome.failed.map((f) => f.reason)).toContain("over-limit");
  });

  it("counts the UTF-8 bytes of every written file, existing ones included, against maxWriteBytes", () => {
    const answer = block("a.txt", "a\n", "é\n"); // "é\n" is 3 bytes
    expect(run("diff", answer, { "a.txt": "a\n" }, { maxWriteBytes: 3 }).outcome.changes.get("a.txt")).toBe("é\n");
    const over = run("diff", answer, { "a.txt": "a\n" }, { maxWriteBytes: 2 });
    expect(over.outcome.changes.size).toBe(0);
    expect(over.reflection).toContain("Your answer writes 3 bytes to files; one answer may write at most 2 bytes.");
  });
});
