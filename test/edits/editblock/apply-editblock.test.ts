import { applyBlocks, block } from "./apply-block-answer.js";

const py = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

describe("SEARCH/REPLACE apply", () => {
  it("applies an exact unique block", () => {
    const r = applyBlocks(`Sure.\n\n${block("m.py", "    return a + b\n", "    return b + a\n")}`, { "m.py": py });
    expect(r.failures).toEqual([]);
    expect(r.after["m.py"]).toBe(py.replace("a + b", "b + a"));
    expect(r.result.outcome.applied[0]!.rung).toBe("exact");
  });

  it("never applies an ambiguous SEARCH to the first match (docs/behaviour.md#ambiguous-matches-are-refused)", () => {
    const file = "x = 1\nprint(x)\nx = 1\n";
    const r = applyBlocks(block("a.py", "x = 1\n", "x = 2\n"), { "a.py": file });
    expect(r.reasons).toEqual(["ambiguous"]);
    expect(r.after["a.py"]).toBe(file);
    expect(r.result.reflection).toContain("lines 1, 3");
  });

  it.each([
    [
      "trailing whitespace ignored",
      "a = 1   \nb = 2\n",
      "a = 1\nb = 2\n",
      "a = 9\nb = 2\n",
      "a = 9\nb = 2\n",
      "trailing-whitespace",
    ],
    [
      "uniform indentation offset",
      "class A:\n    def f(self):\n        return 1\n",
      "def f(self):\n    return 1\n",
      "def f(self):\n    return 2\n",
      "class A:\n    def f(self):\n        return 2\n",
      "indent",
    ],
    ["one leading blank line dropped", "a\nb\nc\n", "\na\nb\nc\n", "a\nB\nc\n", "a\nB\nc\n", "leading-blank"],
    [
      "whitespace inside lines",
      "foo(a,  b)\nbar()\n",
      "foo(a, b)\nbar()\n",
      "foo(b, a)\nbar()\n",
      "foo(b, a)\nbar()\n",
      "inner-whitespace",
    ],
    [
      "... elision",
      "    x=1\n    y=2\n    z=3\n",
      "    x=1\n...\n    z=3\n",
      "    x=10\n...\n    z=30\n",
      "    x=10\n    y=2\n    z=30\n",
      "elision",
    ],
  ])("%s", (_name, file, search, replace, expected, rung) => {
    const r = applyBlocks(block("f.py", search, replace), { "f.py": file });
    expect(r.failures).toEqual([]);
    expect(r.after["f.py"]).toBe(expected);
    expect(r.result.outcome.applied[0]!.rung).toBe(rung);
  });

  it('does not corrupt text when SEARCH is over-indented and REPLACE is not (docs/behaviour.md#indentation-never-corrupts, Aider\'s "  fobar")', () => {
    const r = applyBlocks(block("f.py", "    foo\n", "bar\n"), { "f.py": "  foo\n" });
    expect(r.after["f.py"]).not.toBe("  fobar\n");
    // The indent rung cannot shift REPLACE by -2 spaces, so it declines; the looser rung uses REPLACE as written.
    expect(r.after["f.py"]).toBe("bar\n");
    expect(r.result.outcome.applied[0]!.rung).toBe("inner-whitespace");
  });

  it("creates a new file in a new folder and appends with a newline where the file lacks one (docs/behaviour.md#newlines-and-line-endings)", () => {
    const answer = block("pkg/new/util.py", "", "def f():\n    pass\n") + block("old.py", "", "c = 3\n");
    const r = applyBlocks(answer, { "old.py": "a = 1\nb = 2" });
    expect(r.after["pkg/new/util.py"]).toBe("def f():\n    pass\n");
    expect(r.after["old.py"]).toBe("a = 1\nb = 2\nc = 3"); // final-newline state kept: still none
  });

  it("empties a file and creates an empty file (docs/behaviour.md#empty-files)", () => {
    const r = applyBlocks(block("a.txt", "one\ntwo\n", "") + block("empty.txt", "", ""), { "a.txt": "one\ntwo\n" });
    expect(r.failures).toEqual([]);
    expect(r.after["a.txt"]).toBe("");
    expect(r.after["empty.txt"]).toBe("");
  });

  it("preserves CRLF line endings and unicode", () => {
    const r = applyBlocks(block("w.txt", "héllo\nwörld\n", "héllo\n🌍\n"), { "w.txt": "héllo\r\nwörld\r\nend\r\n" });
    expect(r.after["w.txt"]).toBe("héllo\r\n🌍\r\nend\r\n");
  });

  it("keeps trailing blank lines of REPLACE (Aider drops one)", () => {
    const r = applyBlocks(block("a.py", "x = 1\n", "x = 1\n\n\n"), { "a.py": "x = 1\ny = 2\n" });
    expect(r.after["a.py"]).toBe("x = 1\n\n\ny = 2\n");
  });

  it("applies a SEARCH containing a setext heading instead of deleting the line (docs/behaviour.md#divider-lines-inside-content)", () => {
    const md = "Title\n=====\n\nBody\n";
    const answer =
      "README.md\n```\n<<<<<<< SEARCH\nTitle\n=====\n=======\nNew title\n=========\n>>>>>>> REPLACE\n```\n";
    const r = applyBlocks(answer, { "README.md": md });
    expect(r.failures).toEqual([]);
    expect(r.after["README.md"]).toBe("New title\n=========\n\nBody\n");
  });

  it("keeps a conflict-marker-like line inside REPLACE", () => {
    const answer = "doc.md\n```\n<<<<<<< SEARCH\nintro\n=======\nintro\n=======\nmore\n>>>>>>> REPLACE\n```\n";
    const r = applyBlocks(answer, { "doc.md": "intro\nend\n" });
    expect(r.after["doc.md"]).toBe("intro\n=======\nmore\nend\n");
  });

  it("moves code with two blocks", () => {
    const file = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
    const answer =
      block("m.py", "def a():\n    return 1\n\n\n", "") +
      block("m.py", "    return 2\n", "    return 2\n\n\ndef a():\n    return 1\n");
    const r = applyBlocks(answer, { "m.py": file });
    expect(r.failures).toEqual([]);
    expect(r.after["m.py"]).toBe("def b():\n    return 2\n\n\ndef a():\n    return 1\n");
  });

  it("edits several files in one answer with prose around the blocks", () => {
    const answer = `I'll change both files.\n\n${block("a.py", "a = 1\n", "a = 2\n")}\nAnd the other:\n\n${block("b.py", "b = 1\n", "b = 2\n")}\nDone!`;
    const r = applyBlocks(answer, { "a.py": "a = 1\n", "b.py": "b = 1\n" });
    expect(r.after).toEqual({ "a.py": "a = 2\n", "b.py": "b = 2\n" });
  });

  it("retries in another chat file deterministically and says which file was edited (docs/behaviour.md#deterministic-cross-file-retry)", () => {
    const r = applyBlocks(
      block("a.py", "needle = 1\n", "needle = 2\n"),
      { "a.py": "x\n", "b.py": "needle = 1\n" },
      { chatFiles: ["a.py", "b.py"] },
    );
    expect(r.after["b.py"]).toBe("needle = 2\n");
    expect(r.result.outcome.applied[0]).toMatchObject({ path: "b.py", rung: "cross-file:a.py" });
  });

  it("reports an already-applied block instead of editing another chat file that holds its SEARCH", () => {
    const files = { "a.py": "value = 2\n", "b.py": "value = 1\n" };
    const r = applyBlocks(block("a.py", "value = 1\n", "value = 2\n"), files, { chatFiles: ["a.py", "b.py"] });
    expect(r.reasons).toEqual(["already-applied"]);
    expect(r.after).toEqual(files);
    expect(r.result.outcome.changes.size).toBe(0);
  });

  it("refuses a cross-file match found in several files", () => {
    const r = applyBlocks(block("a.py", "dup = 1\n", "dup = 2\n"), {
      "a.py": "x\n",
      "b.py": "dup = 1\n",
      "c.py": "dup = 1\n",
    });
    expect(r.reasons).toEqual(["no-match"]);
    expect(r.result.outcome.changes.size).toBe(0);
  });

  it("never falls back to another file for an empty SEARCH (Aider #2258)", () => {
    const r = applyBlocks(block("new.py", "", "x = 1\n"), { "a.py": "a\n" });
    expect(r.after["new.py"]).toBe("x = 1\n");
    expect(r.after["a.py"]).toBe("a\n");
  });

  it("says when the REPLACE text is already there, and tells the model not to resend applied blocks", () => {
    const answer = block("a.py", "a = 1\n", "a = 2\n") + block("b.py", "b = 1\n", "b = 2\n");
    const r = applyBlocks(answer, { "a.py": "a = 1\n", "b.py": "b = 2\n" });
    expect(r.reasons).toEqual(["already-applied"]);
    expect(r.result.reflection).toContain("applied successfully");
    expect(r.result.reflection).toContain("Don't send it again");
  });

  it("suggests the closest real lines when nothing matches", () => {
    const file = "def f():\n    x = compute(1)\n    y = compute(2)\n    return x + y\n";
    const r = applyBlocks(
      block("f.py", "def f():\n    x = compute(1)\n    y = compute(3)\n    return x + y\n", "pass\n"),
      { "f.py": file },
    );
    expect(r.reasons).toEqual(["no-match"]);
    expect(r.result.reflection).toContain("Did you mean to match these actual lines");
    expect(r.result.reflection).toContain("y = compute(2)");
  });

  it.each([["../outside.py"], ["/etc/passwd"], [".git/config"], [".github/workflows/ci.yml"], ["src/../../x.py"]])(
    "refuses the unsafe path %s (docs/behaviour.md#paths-stay-inside-the-checkout)",
    (path) => {
      const r = applyBlocks(block(path, "", "evil\n"), { "a.py": "a\n" });
      expect(r.reasons).toEqual(["unsafe-path"]);
      expect(r.result.outcome.changes.size).toBe(0);
    },
  );

  it("refuses files the workspace marked unreadable", () => {
    const r = applyBlocks(
      block("img.png", "x\n", "y\n"),
      { "img.png": "x\n" },
      { problems: { "img.png": { reason: "unreadable", message: "binary file" } } },
    );
    expect(r.reasons).toEqual(["unreadable"]);
  });

  it("reports an answer without edits (docs/behaviour.md#answers-without-edits-are-reported)", () => {
    const r = applyBlocks("I think the code is fine as it is.", { "a.py": "a\n" });
    expect(r.reasons).toEqual(["no-edits"]);
    expect(r.result.reflection).toMatch(/no edits/);
  });
});

describe("path normalisation edge cases found by the property test", () => {
  it.each([[".github/workflows/"], ["src/"], ["a/./../../x"], ["a/.git/./config"]])("refuses %s", (path) => {
    const r = applyBlocks(block(path, "", "x\n"), { "a.py": "a\n" });
    expect(r.reasons).toEqual(["unsafe-path"]);
    expect(r.result.outcome.changes.size).toBe(0);
  });

  it("normalises ./ and duplicate slashes", () => {
    const r = applyBlocks(block(".//src/./new.py", "", "x\n"), {});
    expect(r.after["src/new.py"]).toBe("x\n");
  });
});

describe("SEARCH/REPLACE apply: the ladder in detail", () => {
  it("prefers `...` elision over whitespace-inside-lines, and keeps the elided middle", () => {
    const file = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n";
    const r = applyBlocks(block("f.py", "def f():\n...\n    return a\n", "def f(x):\n...\n    return x\n"), {
      "f.py": file,
    });
    expect(r.rungs).toEqual(["elision"]);
    expect(r.after["f.py"]).toBe("def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return x\n");
  });

  it("matches `...` pieces as whole lines (Aider matches substrings: `foo()` inside `bar.foo()`)", () => {
    const file = "bar.foo()\nx\nfoo()\n";
    const r = applyBlocks(block("f.py", "foo()\n...\n", "baz()\n...\n"), { "f.py": file });
    expect(r.after["f.py"]).toBe("bar.foo()\nx\nbaz()\n");
  });

  it("refuses a `...` piece that occurs twice", () => {
    const r = applyBlocks(block("f.py", "x\n...\nz\n", "X\n...\nZ\n"), { "f.py": "x\ny\nz\nx\n" });
    expect(r.reasons).toEqual(["ambiguous"]);
  });

  it("refuses unpaired `...`", () => {
    const r = applyBlocks(block("f.py", "x\n...\nz\n", "X\nZ\n"), { "f.py": "x\ny\nz\n" });
    expect(r.reasons).toEqual(["no-match"]);
  });

  it("applies a literal `...` line exactly before treating it as elision", () => {
    const file = "class P:\n    def f(self):\n        ...\n";
    const r = applyBlocks(block("p.py", "    def f(self):\n        ...\n", "    def f(self):\n        return 1\n"), {
      "p.py": file,
    });
    expect(r.rungs).toEqual(["exact"]);
    expect(r.after["p.py"]).toBe("class P:\n    def f(self):\n        return 1\n");
  });

  it("indents REPLACE with tabs when the file uses tabs", () => {
    const r = applyBlocks(block("m.go", "if x {\n\treturn 1\n}\n", "if x {\n\treturn 2\n}\n", "go"), {
      "m.go": "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
    });
    expect(r.rungs).toEqual(["indent"]);
    expect(r.after["m.go"]).toBe("func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n");
  });

  it("deletes code with an empty REPLACE", () => {
    const r = applyBlocks(block("m.py", "def sub(a, b):\n    return a - b\n", ""), { "m.py": py });
    expect(r.after["m.py"]).toBe("def add(a, b):\n    return a + b\n\n\n");
  });

  it("does not claim already-applied for a deletion whose kept lines are still there", () => {
    const r = applyBlocks(block("m.py", "def add(a, b):\n    return a + c\n", "def add(a, b):\n"), { "m.py": py });
    expect(r.reasons).toEqual(["no-match"]);
  });

  it("applies blocks in order, each against the file as earlier blocks left it", () => {
    const answer =
      block("m.py", "    return a + b\n", "    return add2(a, b)\n") +
      block("m.py", "    return add2(a, b)\n", "    return a+b\n");
    const r = applyBlocks(answer, { "m.py": py });
    expect(r.failures).toEqual([]);
    expect(r.after["m.py"]).toBe(py.replace("a + b", "a+b"));
  });

  it("reports a SEARCH on a file that does not exist", () => {
    const r = applyBlocks(block("nope.py", "x\n", "y\n"), { "a.py": "a\n" });
    expect(r.reasons).toEqual(["file-missing"]);
  });

  it("keeps unicode intact (combining marks, emoji, CJK)", () => {
    const file = 'naïve = "café"\n名前 = "🌸"\n';
    const r = applyBlocks(block("u.py", '名前 = "🌸"\n', '名前 = "🌻"\n'), { "u.py": file });
    expect(r.after["u.py"]).toBe('naïve = "café"\n名前 = "🌻"\n');
  });
});
