import { parseEditBlocks } from "../../../src/edits/editblock/parse-editblock.js";
import { applyBlocks, block } from "./apply-block-answer.js";

/**
 * One test per docs/behaviour.md#where-we-differ-from-aider fix for SEARCH/REPLACE. Each states what Aider does, and would fail on it.
 */
const ctx = { fence: ["```", "```"] as const, chatFiles: ["src/app.py"], repoFiles: ["src/app.py"] };

describe("docs/behaviour.md#prose-is-not-a-filename: prose is not a filename", () => {
  it.each([["Here is the change:"], ["Now update the function"], ["I'll fix it below."]])(
    "%s before the SEARCH marker inherits the previous file (Aider names a file after the prose)",
    (prose) => {
      const answer = `${block("src/app.py", "a = 1\n", "a = 2\n")}\n${prose}\n<<<<<<< SEARCH\nb = 1\n=======\nb = 2\n>>>>>>> REPLACE\n`;
      const r = parseEditBlocks(answer, ctx);
      expect(r.edits.map((e) => e.path)).toEqual(["src/app.py", "src/app.py"]);
    },
  );

  it("with no previous file, prose gives missing-filename (Aider creates a file named after the prose)", () => {
    const r = applyBlocks("Here is the change:\n```python\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n```\n", {
      "src/app.py": "a\n",
    });
    expect(r.reasons).toEqual(["missing-filename"]);
    expect(r.result.outcome.changes.size).toBe(0);
    expect(r.result.reflection).toContain("alone on the line before the opening fence ```");
  });

  it("a name with spaces is accepted when it is a real file", () => {
    const r = parseEditBlocks("docs/My Notes.md\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n", {
      ...ctx,
      chatFiles: ["docs/My Notes.md"],
    });
    expect(r.edits[0]?.path).toBe("docs/My Notes.md");
  });
});

describe("docs/behaviour.md#divider-lines-inside-content: divider-like lines inside content", () => {
  it("a setext underline in SEARCH does not turn the edit into a deletion", () => {
    // Aider parses SEARCH "Title\n" and REPLACE "" from this block, deleting the title.
    const md = "Title\n=====\n\nBody text.\n";
    const answer =
      "README.md\n```markdown\n<<<<<<< SEARCH\nTitle\n=====\n=======\nBetter title\n============\n>>>>>>> REPLACE\n```\n";
    const r = applyBlocks(answer, { "README.md": md });
    expect(r.failures).toEqual([]);
    expect(r.after["README.md"]).toBe("Better title\n============\n\nBody text.\n");
  });

  it("resolving a merge conflict whose markers are in both SEARCH and REPLACE picks the split that matches", () => {
    const file = "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\nz\n";
    const answer = [
      "f.txt",
      "```",
      "<<<<<<< SEARCH",
      "<<<<<<< HEAD",
      "ours",
      "=======",
      "theirs",
      ">>>>>>> branch",
      "=======",
      "ours",
      "=======",
      "merged",
      ">>>>>>> REPLACE",
      "```",
      "",
    ].join("\n");
    const r = applyBlocks(answer, { "f.txt": file });
    expect(r.failures).toEqual([]);
    expect(r.after["f.txt"]).toBe("a\nours\n=======\nmerged\nz\n");
  });

  it("text after a second divider is kept, not silently discarded", () => {
    const r = applyBlocks("doc.md\n```\n<<<<<<< SEARCH\nintro\n=======\nintro\n=======\nmore\n>>>>>>> REPLACE\n```\n", {
      "doc.md": "intro\nend\n",
    });
    expect(r.after["doc.md"]).toContain("more");
  });

  it("a block closed with `=======` instead of `>>>>>>> REPLACE` still applies, as in Aider", () => {
    const answer =
      "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n```\n\nb.py\n```python\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n```\n";
    const r = applyBlocks(answer, { "a.py": "x = 1\n", "b.py": "y = 1\n" });
    expect(r.failures).toEqual([]);
    expect(r.after).toEqual({ "a.py": "x = 2\n", "b.py": "y = 2\n" });
  });
});

describe("docs/behaviour.md#shell-fences-by-exact-tag: shell fences by exact tag", () => {
  it.each([["csharp"], ["shader"], ["shellscript"], ["cmake"]])(
    "```%s is code, not a shell command (Aider prefix-matches it)",
    (tag) => {
      expect(parseEditBlocks(`\`\`\`${tag}\nvar x = 1;\n\`\`\`\n`, ctx).shell).toEqual([]);
    },
  );

  it.each([["bash"], ["sh"], ["console"], ["powershell"], ["zsh"]])(
    "```%s is a shell block, and a ````%s fence too",
    (tag) => {
      expect(parseEditBlocks(`Run:\n\`\`\`${tag}\nnpm test\n\`\`\`\n`, ctx).shell).toEqual(["npm test"]);
      expect(parseEditBlocks(`Run:\n\`\`\`\`${tag}\nnpm test\n\`\`\`\`\n`, ctx).shell).toEqual(["npm test"]);
    },
  );

  it("a fenced edit block whose fence says bash is still an edit", () => {
    const r = parseEditBlocks("run.sh\n```bash\n<<<<<<< SEARCH\necho a\n=======\necho b\n>>>>>>> REPLACE\n```\n", ctx);
    expect(r.shell).toEqual([]);
    expect(r.edits).toHaveLength(1);
  });
});

describe("docs/behaviour.md#empty-files: empty results", () => {
  it("emptying a file succeeds (Aider treats an empty result as a failure)", () => {
    const r = applyBlocks(block("a.txt", "one\ntwo\n", ""), { "a.txt": "one\ntwo\n" });
    expect(r.failures).toEqual([]);
    expect(r.after["a.txt"]).toBe("");
  });

  it("creating an empty file succeeds", () => {
    const r = applyBlocks(block("pkg/__init__.py", "", ""), {});
    expect(r.failures).toEqual([]);
    expect(r.after["pkg/__init__.py"]).toBe("");
  });
});

describe("docs/behaviour.md#newlines-and-line-endings: newlines and line endings", () => {
  it.each([
    ["appending to a file without a final newline inserts one (Aider glues `bc`)", "a\nb", "", "c\n", "a\nb\nc"],
    [
      "CRLF is kept on every line (Aider rewrites the file with LF, #1102)",
      "a\r\nb\r\n",
      "b\n",
      "B\nC\n",
      "a\r\nB\r\nC\r\n",
    ],
    ["a missing final newline stays missing", "a\nb", "b\n", "B\n", "a\nB"],
    [
      "trailing blank lines of SEARCH and REPLACE are kept (Aider drops one)",
      "x\n\n\ny\n",
      "x\n\n\n",
      "x\n\n",
      "x\n\ny\n",
    ],
  ])("%s", (_name, file, search, replace, expected) => {
    const r = applyBlocks(block("f.txt", search, replace), { "f.txt": file });
    expect(r.failures).toEqual([]);
    expect(r.after["f.txt"]).toBe(expected);
  });
});

describe("docs/behaviour.md#indentation-never-corrupts: the indentation rung never corrupts text", () => {
  it("an over-indented SEARCH with a less-indented REPLACE does not give Aider's `  fobar`", () => {
    const r = applyBlocks(block("f.py", "    foo\n", "bar\n"), { "f.py": "  foo\n" });
    expect(r.after["f.py"]).not.toBe("  fobar\n");
    expect(r.after["f.py"]).toBe("bar\n");
  });

  it("an over-indented SEARCH and REPLACE are shifted back together", () => {
    const r = applyBlocks(block("f.py", "        x = 1\n        y = 2\n", "        x = 10\n        y = 2\n"), {
      "f.py": "def f():\n    x = 1\n    y = 2\n",
    });
    expect(r.after["f.py"]).toBe("def f():\n    x = 10\n    y = 2\n");
    expect(r.rungs).toEqual(["indent"]);
  });
});

describe("docs/behaviour.md#ambiguous-matches-are-refused: ambiguous matches are never applied", () => {
  it("a short SEARCH like `}` that occurs twice fails with both line numbers (Aider edits the first, #2050)", () => {
    const file = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
    const r = applyBlocks(block("f.js", "}\n", "}\n// end\n", "js"), { "f.js": file });
    expect(r.reasons).toEqual(["ambiguous"]);
    expect(r.after["f.js"]).toBe(file);
    expect(r.result.reflection).toContain("lines 3, 7");
  });

  it.each([
    ["trailing whitespace", "a = 1 \nb\na = 1\t\n", "a = 1\n", "lines 1, 3"],
    ["indentation", "  x = 1\n    x = 1\n", "x = 1\n", "lines 1, 2"],
    ["whitespace inside lines", "f(a,  b)\nf(a,\tb)\n", "f(a, b)\n", "lines 1, 2"],
  ])("also at the %s rung", (_rung, file, search, lines) => {
    const r = applyBlocks(block("f.txt", search, "CHANGED\n"), { "f.txt": file });
    expect(r.reasons).toEqual(["ambiguous"]);
    expect(r.result.reflection).toContain(lines);
  });
});

describe("docs/behaviour.md#deterministic-cross-file-retry: cross-file retry", () => {
  it("is deterministic in chat order and names the file really edited", () => {
    const files = { "a.py": "x\n", "b.py": "needle = 1\n", "c.py": "other\n" };
    const r = applyBlocks(block("a.py", "needle = 1\n", "needle = 2\n"), files, {
      chatFiles: ["c.py", "a.py", "b.py"],
    });
    expect(r.after["b.py"]).toBe("needle = 2\n");
    expect(r.result.outcome.applied[0]).toMatchObject({ path: "b.py", rung: "cross-file:a.py" });
  });

  it("refuses when several other files match (Aider takes an arbitrary one, #2097)", () => {
    const r = applyBlocks(block("a.py", "dup = 1\n", "dup = 2\n"), {
      "a.py": "x\n",
      "b.py": "dup = 1\n",
      "c.py": "dup = 1\n",
    });
    expect(r.reasons).toEqual(["no-match"]);
    expect(r.failures[0]!.message).toContain("`b.py`, `c.py`");
    expect(r.result.outcome.changes.size).toBe(0);
  });

  it("is never used for an empty SEARCH, and a new file's basename is not resolved to a chat file (#2258)", () => {
    const r = applyBlocks(block("utils.py", "", "def helper():\n    pass\n"), { "src/utils.py": "X = 1\n" });
    expect(r.after["utils.py"]).toBe("def helper():\n    pass\n");
    expect(r.after["src/utils.py"]).toBe("X = 1\n");
  });

  it("is not used for files outside the chat", () => {
    const r = applyBlocks(
      block("a.py", "needle\n", "pin\n"),
      { "a.py": "x\n", "b.py": "needle\n" },
      { chatFiles: ["a.py"] },
    );
    expect(r.reasons).toEqual(["no-match"]);
  });
});

describe("docs/behaviour.md#extra-tolerant-rungs: tolerant rungs that cannot pick a wrong place", () => {
  it("the similarity rung is off by default", () => {
    const file = Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const search =
      ["line 1", "line 2", "line 3", "line 4", "typo 5", "line 6", "line 7", "line 8", "line 9", "line 10"].join("\n") +
      "\n";
    expect(applyBlocks(block("f.txt", search, "NEW\n"), { "f.txt": file }).reasons).toEqual(["no-match"]);
    const fuzzy = applyBlocks(block("f.txt", search, "NEW\n"), { "f.txt": file }, { fuzzy: true });
    expect(fuzzy.rungs).toEqual(["similarity"]);
    expect(fuzzy.after["f.txt"]).toBe("line 0\nNEW\nline 11\n");
  });

  it("the similarity rung refuses when a shifted window scores as well (the edges are unclear)", () => {
    const file = Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const search =
      ["line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10", "typo 11"].join(
        "\n",
      ) + "\n";
    const r = applyBlocks(block("f.txt", search, "NEW\n"), { "f.txt": file }, { fuzzy: true });
    expect(r.reasons).toEqual(["ambiguous"]);
    expect(r.after["f.txt"]).toBe(file);
  });

  it("the similarity rung refuses when another place is nearly as close", () => {
    const part = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    const file = [...part, "sep", ...part].join("\n") + "\n";
    const search = [...part.slice(0, 9), "typo"].join("\n") + "\n";
    expect(applyBlocks(block("f.txt", search, "NEW\n"), { "f.txt": file }, { fuzzy: true }).reasons).toEqual([
      "ambiguous",
    ]);
  });
});

describe("docs/behaviour.md#answers-without-edits-are-reported: an answer without edits is reported", () => {
  it("talk only gives a no-edits failure (Aider is silent, #3645)", () => {
    const r = applyBlocks("The code looks correct to me; no change is needed.", { "a.py": "a\n" });
    expect(r.reasons).toEqual(["no-edits"]);
    expect(r.result.reflection).toContain("no edits");
  });

  it("old ORIGINAL/UPDATED markers count as no edits, not silence", () => {
    const r = applyBlocks("a.py\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n", { "a.py": "a\n" });
    expect(r.reasons).toEqual(["no-edits"]);
  });

  it("an answer with only a shell command is not a no-edits failure", () => {
    const r = applyBlocks("Run:\n```bash\nnpm install\n```\n", { "a.py": "a\n" });
    expect(r.reasons).toEqual([]);
    expect(r.result.parse.shell).toEqual(["npm install"]);
  });
});

describe("docs/behaviour.md#paths-stay-inside-the-checkout: paths stay inside the checkout", () => {
  it.each([
    ["../outside.py"],
    ["/etc/passwd"],
    [".git/hooks/pre-commit"],
    [".GIT/config"],
    [".github/workflows/ci.yml"],
    ["src/../../x.py"],
    ["C:/x.py"],
    ["~/x.py"],
  ])("%s is refused and never written", (p) => {
    const r = applyBlocks(block(p, "", "evil\n"), { "a.py": "a\n" });
    expect(r.reasons).toEqual(["unsafe-path"]);
    expect(r.result.outcome.changes.size).toBe(0);
  });

  it("a cross-file retry never lands in a protected chat file", () => {
    const files = { "a.py": "x\n", ".github/workflows/ci.yml": "run: test\n" };
    const r = applyBlocks(block("a.py", "run: test\n", "run: evil\n"), files, {
      chatFiles: ["a.py", ".github/workflows/ci.yml"],
    });
    expect(r.result.outcome.changes.size).toBe(0);
    expect(r.reasons).toEqual(["no-match"]);
  });
});
