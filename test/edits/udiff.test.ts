import { applyAnswer } from "./apply-answer.js";

describe("udiff format", () => {
  it("applies a diff without line numbers, once, with prose around it", () => {
    const answer =
      "Change:\n\n```diff\n--- a/m.py\n+++ b/m.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2\n```\nThat's it.";
    const r = applyAnswer("udiff", answer, { "m.py": "def f():\n    return 1\n" });
    expect(r.failures).toEqual([]);
    expect(r.after["m.py"]).toBe("def f():\n    return 2\n");
  });

  it("replaces once and never every occurrence (Aider #3883): several matches are ambiguous", () => {
    const file = "hello_world()\nx = 1\nhello_world()\n";
    const r = applyAnswer("udiff", "```diff\n--- a/a.py\n+++ b/a.py\n@@ @@\n-hello_world()\n+goodbye()\n```\n", {
      "a.py": file,
    });
    expect(r.reasons).toEqual(["ambiguous"]);
    expect(r.after["a.py"]).toBe(file);
  });

  it("strips b/ for the second file too and reads a diff in a plain fence", () => {
    const answer =
      "```\n--- a/x.py\n+++ b/x.py\n@@ @@\n-x = 1\n+x = 2\n--- a/y.py\n+++ b/y.py\n@@ @@\n-y = 1\n+y = 2\n```\n";
    const r = applyAnswer("udiff", answer, { "x.py": "x = 1\n", "y.py": "y = 1\n" });
    expect(r.after).toEqual({ "x.py": "x = 2\n", "y.py": "y = 2\n" });
  });

  it("a Markdown fence inside the diffed file is a context line, not the end of the diff (four-backtick fence)", () => {
    const readme = "# Use\n\n```js\nimport x from 'x';\n\nx();\n```\n";
    const answer =
      "````diff\n--- README.md\n+++ README.md\n@@ @@\n ```js\n import x from 'x';\n+// or: import { x } from 'x';\n \n x();\n````\n";
    const r = applyAnswer("udiff", answer, { "README.md": readme }, { fence: ["````", "````"] });
    expect(r.failures).toEqual([]);
    expect(r.after["README.md"]).toBe(readme.replace("'x';\n", "'x';\n// or: import { x } from 'x';\n"));
  });

  it("keeps the last line of an unterminated fence", () => {
    const r = applyAnswer("udiff", "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ @@\n a\n+b", { "a.txt": "a\n" });
    expect(r.after["a.txt"]).toBe("a\nb\n");
  });

  it("reports a hunk without a file header instead of crashing", () => {
    const r = applyAnswer("udiff", "```diff\n@@ @@\n-a\n+b\n```\n", { "a.txt": "a\n" });
    expect(r.reasons).toEqual(["missing-filename"]);
  });

  it("retries with less context when the edges of the hunk are wrong", () => {
    const file = "one\ntwo\nthree\nfour\n";
    const r = applyAnswer(
      "udiff",
      "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ @@\n zero\n two\n-three\n+THREE\n four\n```\n",
      { "f.txt": file },
    );
    expect(r.after["f.txt"]).toBe("one\ntwo\nTHREE\nfour\n");
    expect(r.result.outcome.applied[0]!.rung).toBe("less-context");
  });

  it("creates and deletes files with /dev/null headers; partial success is reported per hunk", () => {
    const answer =
      "```diff\n--- /dev/null\n+++ b/new/file.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n--- a/gone.txt\n+++ /dev/null\n@@ @@\n-bye\n--- a/keep.txt\n+++ b/keep.txt\n@@ @@\n-nothing like this\n+x\n```\n";
    const r = applyAnswer("udiff", answer, { "gone.txt": "bye\n", "keep.txt": "keep\n" });
    expect(r.after["new/file.txt"]).toBe("hello\nworld\n");
    expect(r.after["gone.txt"]).toBeUndefined();
    expect(r.reasons).toEqual(["no-match"]);
    expect(r.result.reflection).toContain("The other 2 edits were applied successfully");
  });
});
