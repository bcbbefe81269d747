import { parseEditBlocks } from "../../../src/edits/editblock/parse-editblock.js";
import type { Fence } from "../../../src/edits/types.js";

const ctx = (chatFiles: string[] = ["src/app.py", "README.md"], fence: Fence = ["```", "```"]) => ({
  fence,
  chatFiles,
  repoFiles: chatFiles,
});

describe("parseEditBlocks", () => {
  it.each([
    [
      "path before the fence",
      "src/app.py\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    [
      "diff-fenced: path inside the fence",
      "```python\nsrc/app.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    ["bare, no fence", "src/app.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n", "src/app.py"],
    [
      "markdown-decorated name",
      "**src/app.py**\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    ["`name`: form", "`src/app.py`:\n```\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n", "src/app.py"],
    [
      "DeepSeek mangling (name, fence, fence+lang)",
      "src/app.py\n```\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    [
      "basename of a chat file",
      "app.py\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    [
      "tolerant markers",
      "src/app.py\n```\n  <<<<< SEARCH  \na = 1\n=====\na = 2\n>>>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    [
      "SEARCH> variant",
      "src/app.py\n```\n<<<<<<<<< SEARCH>\na = 1\n=========\na = 2\n>>>>>>> REPLACE\n```\n",
      "src/app.py",
    ],
    [
      "new file in a new folder",
      "lib/new/util.ts\n```ts\n<<<<<<< SEARCH\n=======\nexport const x = 1;\n>>>>>>> REPLACE\n```\n",
      "lib/new/util.ts",
    ],
  ])("%s", (_name, answer, path) => {
    const r = parseEditBlocks(answer, ctx());
    expect(r.failures).toEqual([]);
    expect(r.edits).toHaveLength(1);
    expect(r.edits[0]).toMatchObject({ kind: "replace", path });
  });

  it("reads 4-backtick fences", () => {
    const r = parseEditBlocks(
      "README.md\n````markdown\n<<<<<<< SEARCH\n```js\nx\n```\n=======\n```js\ny\n```\n>>>>>>> REPLACE\n````\n",
      ctx(undefined, ["````", "````"]),
    );
    expect(r.edits[0]).toMatchObject({ path: "README.md", search: "```js\nx\n```\n", replace: "```js\ny\n```\n" });
  });

  it("does not take a prose line as the filename; inherits the previous block's file (docs/behaviour.md#prose-is-not-a-filename)", () => {
    const answer = [
      "src/app.py",
      "```python",
      "<<<<<<< SEARCH",
      "a = 1",
      "=======",
      "a = 2",
      ">>>>>>> REPLACE",
      "```",
      "",
      "Here is the change:",
      "<<<<<<< SEARCH",
      "b = 1",
      "=======",
      "b = 2",
      ">>>>>>> REPLACE",
      "",
    ].join("\n");
    const r = parseEditBlocks(answer, ctx());
    expect(r.edits.map((e) => e.path)).toEqual(["src/app.py", "src/app.py"]);
  });

  it("reports a missing filename instead of inventing one from prose", () => {
    const r = parseEditBlocks("Please update\n\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", ctx());
    expect(r.edits).toEqual([]);
    expect(r.failures).toEqual([expect.objectContaining({ reason: "missing-filename" })]);
  });

  it("reports a block without REPLACE marker and goes on with the next", () => {
    const answer =
      "src/app.py\n<<<<<<< SEARCH\na\n=======\nb\n\nsrc/app.py\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n";
    const r = parseEditBlocks(answer, ctx());
    expect(r.failures.map((f) => f.reason)).toEqual(["malformed"]);
    expect(r.edits).toHaveLength(1);
  });

  it.each([
    ["bash", true],
    ["sh", true],
    ["console", true],
    ["zsh", true],
    ["csharp", false],
    ["shader", false],
    ["shellscript", false],
  ])("```%s is a shell block: %s (docs/behaviour.md#shell-fences-by-exact-tag)", (tag, isShell) => {
    const r = parseEditBlocks(`Run this:\n\`\`\`${tag}\nnpm test\n\`\`\`\n`, ctx());
    expect(r.shell).toEqual(isShell ? ["npm test"] : []);
  });

  it("keeps every line when a block holds several divider-like lines (docs/behaviour.md#divider-lines-inside-content)", () => {
    const answer =
      "README.md\n```\n<<<<<<< SEARCH\nTitle\n=====\n=======\nTitle\n=====\n\nIntro\n>>>>>>> REPLACE\n```\n";
    const r = parseEditBlocks(answer, ctx());
    const e = r.edits[0]!;
    expect(e.kind === "replace" && e.search).toBe("Title\n=====\n");
    expect(e.kind === "replace" && e.replace).toBe("Title\n=====\n\nIntro\n");
  });

  it("ignores old ORIGINAL/UPDATED words and reads CRLF answers", () => {
    expect(parseEditBlocks("a.py\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n", ctx()).edits).toEqual([]);
    const r = parseEditBlocks("src/app.py\r\n<<<<<<< SEARCH\r\na\r\n=======\r\nb\r\n>>>>>>> REPLACE\r\n", ctx());
    expect(r.edits[0]).toMatchObject({ search: "a\n", replace: "b\n" });
  });
});

describe("parseEditBlocks: filename forms models write", () => {
  const body = "<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n";
  it.each([
    ["language then path on the fence line", "```python src/app.py\n" + body + "```\n", "src/app.py"],
    ["lang:path on the fence line", "```py:src/app.py\n" + body + "```\n", "src/app.py"],
    ["a File: label", "File: `src/app.py`\n```python\n" + body + "```\n", "src/app.py"],
    ["a Markdown heading", "### src/app.py\n```python\n" + body + "```\n", "src/app.py"],
    ["a close misspelling of a chat file (ratio ≥ 0.8)", "src/ap.py\n```python\n" + body + "```\n", "src/app.py"],
    ["Windows separators", "src\\app.py\n```python\n" + body + "```\n", "src/app.py"],
    ["./ prefix", "./src/app.py\n```python\n" + body + "```\n", "src/app.py"],
    ["unicode path", "docs/résumé.md\n```\n" + body + "```\n", "docs/résumé.md"],
  ])("%s", (_name, answer, path) => {
    const r = parseEditBlocks(answer, ctx());
    expect(r.failures).toEqual([]);
    expect(r.edits.map((e) => e.path)).toEqual([path]);
  });

  it("does not resolve a new file (empty SEARCH) to a similar chat file", () => {
    const r = parseEditBlocks("src/ap.py\n```python\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n```\n", ctx());
    expect(r.edits[0]?.path).toBe("src/ap.py");
  });

  it("reads several blocks inside one fence under one filename", () => {
    const answer =
      "src/app.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n";
    const r = parseEditBlocks(answer, ctx());
    expect(r.edits.map((e) => e.kind === "replace" && [e.path, e.search, e.replace])).toEqual([
      ["src/app.py", "a\n", "b\n"],
      ["src/app.py", "c\n", "d\n"],
    ]);
  });

  it("uses the diff-fenced layout under a 4-backtick fence even when the model uses 3 (Aider #2879)", () => {
    const r = parseEditBlocks("```python\nsrc/app.py\n" + body + "```\n", ctx(undefined, ["````", "````"]));
    expect(r.edits[0]?.path).toBe("src/app.py");
  });

  it("reports a block without a divider", () => {
    const r = parseEditBlocks("src/app.py\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", ctx());
    expect(r.failures).toEqual([expect.objectContaining({ reason: "malformed", path: "src/app.py" })]);
    expect(r.failures[0]!.message).toContain("=======");
  });

  it("records shell commands next to edits, and not the edit fences", () => {
    const answer = "src/app.py\n```python\n" + body + "```\n\nThen run:\n```sh\npytest -q\n```\n";
    const r = parseEditBlocks(answer, ctx());
    expect(r.edits).toHaveLength(1);
    expect(r.shell).toEqual(["pytest -q"]);
  });
});
