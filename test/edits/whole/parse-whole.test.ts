import { parseWhole } from "../../../src/edits/whole/parse-whole.js";
import type { Fence } from "../../../src/edits/types.js";

const F = "```";
const ctx = (chatFiles: string[], fence: Fence = ["```", "```"], repoFiles: string[] = chatFiles) => ({
  fence,
  chatFiles,
  repoFiles,
});

describe("parseWhole: which file a listing is for", () => {
  it.each([
    // [case, answer, chat files, expected path]
    ["bold with colon (Aider: `a.txt**`)", `**a.txt**:\n${F}\nx\n${F}\n`, ["a.txt", "b.txt"], "a.txt"],
    ["heading", `### src/a.ts\n${F}ts\nx\n${F}\n`, ["src/a.ts", "b.txt"], "src/a.ts"],
    ["backticked with colon", "`b.txt`:\n```\nx\n```\n", ["a.txt", "b.txt"], "b.txt"],
    ["(updated) suffix", `**src/app.ts** (updated):\n${F}ts\nx\n${F}\n`, ["a.txt", "b.txt"], "src/app.ts"],
    ["File: prefix", `File: lib/new.rb\n${F}ruby\nx\n${F}\n`, ["a.txt", "b.txt"], "lib/new.rb"],
    [
      "backticked path inside prose",
      `Here is the new \`docs/setup.md\`:\n${F}\nx\n${F}\n`,
      ["a.txt", "b.txt"],
      "docs/setup.md",
    ],
    [
      "bogus folder onto a root chat file (Aider parity)",
      `path/to/sample.txt\n${F}\nx\n${F}\n`,
      ["sample.txt", "b.txt"],
      "sample.txt",
    ],
    [
      "bare basename onto the one chat file with it",
      `greet.ts\n${F}\nx\n${F}\n`,
      ["src/greet.ts", "b.txt"],
      "src/greet.ts",
    ],
    [
      "prose line: earlier backtick mention (saw)",
      `I'll update \`b.txt\` now.\n\nHere it is:\n${F}\nx\n${F}\n`,
      ["a.txt", "b.txt"],
      "b.txt",
    ],
    ["prose line: the only chat file", `Here is the updated file:\n${F}\nx\n${F}\n`, ["only.txt"], "only.txt"],
    ["fence on the first line: the only chat file", `${F}\nx\n${F}\n`, ["only.txt"], "only.txt"],
    ["extensionless known name", `Makefile\n${F}make\nx\n${F}\n`, ["a.txt", "b.txt"], "Makefile"],
    ["info string lang:path", `${F}python:pkg/mod.py\nx\n${F}\n`, ["a.txt", "b.txt"], "pkg/mod.py"],
    [
      "shell tag with a filename line is a listing",
      `scripts/run.sh\n${F}bash\nx\n${F}\n`,
      ["a.txt", "b.txt"],
      "scripts/run.sh",
    ],
  ])("%s", (_case, answer, chatFiles, path) => {
    const r = parseWhole(answer, ctx(chatFiles));
    expect(r.failures).toEqual([]);
    expect(r.edits).toEqual([{ kind: "whole", path, content: "x\n" }]);
  });

  it.each([
    ["several chat files, no name", `${F}\nx\n${F}\n`],
    ["prose that is not a path", `Here is the code:\n${F}\nx\n${F}\n`],
    ["a call in backticks is not a path", `Call \`foo.bar()\` like this:\n${F}\nx\n${F}\n`],
    ["a line over 250 characters (Aider #1232)", `${"a".repeat(260)}.txt\n${F}\nx\n${F}\n`],
  ])("missing filename: %s", (_case, answer) => {
    const r = parseWhole(answer, ctx(["a.txt", "b.txt"]));
    expect(r.edits).toEqual([]);
    expect(r.failures.map((f) => f.reason)).toEqual(["missing-filename"]);
    expect(r.failures[0]!.message).toContain("line right before the opening fence");
  });

  it("forgets a backtick mention once a listing closes (Aider clears saw_fname)", () => {
    const r = parseWhole(`Update \`b.txt\`:\n\n${F}\none\n${F}\n\n${F}\ntwo\n${F}\n`, ctx(["a.txt", "b.txt"]));
    expect(r.edits).toEqual([{ kind: "whole", path: "b.txt", content: "one\n" }]);
    expect(r.failures.map((f) => f.reason)).toEqual(["missing-filename"]);
  });
});

describe("parseWhole: listing bodies", () => {
  it.each([
    [
      "inner ```bash … ``` in a ``` listing (Aider truncates)",
      `README.md\n${F}markdown\n# T\n${F}bash\nnpm i\n${F}\nend\n${F}\nafter\n`,
      "# T\n```bash\nnpm i\n```\nend\n",
    ],
    [
      "inner bare ``` pair inside a ```` listing",
      "README.md\n````\n# T\n```\ncode\n```\nend\n````\n",
      "# T\n```\ncode\n```\nend\n",
    ],
    [
      "a ```` fence inside an inner ```` block is content",
      "README.md\n`````md\n````md\n```\nx\n```\n````\n`````\n",
      "````md\n```\nx\n```\n````\n",
    ],
    ["unterminated listing at the end keeps what was read", `README.md\n${F}\nline 1\nline 2`, "line 1\nline 2\n"],
    ["empty listing empties the file", `README.md\n${F}\n${F}\n`, ""],
    ["CRLF answer", `README.md\r\n${F}\r\na\r\nb\r\n${F}\r\n`, "a\nb\n"],
    ["unicode kept", `README.md\n${F}\nñ → 日本 🎉\n${F}\n`, "ñ → 日本 🎉\n"],
  ])("%s", (_case, answer, content) => {
    const r = parseWhole(answer, ctx(["README.md", "x.txt"]));
    expect(r.edits).toEqual([{ kind: "whole", path: "README.md", content }]);
  });

  it("reads custom fences like <source>…</source>", () => {
    const r = parseWhole("a.txt\n<source>\n```\nx\n</source>\n", ctx(["a.txt", "b.txt"], ["<source>", "</source>"]));
    expect(r.edits).toEqual([{ kind: "whole", path: "a.txt", content: "```\nx\n" }]);
  });

  it("keeps a shell block with no filename as a command, never as a listing of the only chat file", () => {
    const r = parseWhole(`a.py\n${F}py\nx = 1\n${F}\n\nThen run:\n${F}bash\npytest -q\n${F}\n`, ctx(["a.py"]));
    expect(r.edits).toEqual([{ kind: "whole", path: "a.py", content: "x = 1\n" }]);
    expect(r.shell).toEqual(["pytest -q"]);
  });

  it("de-duplicates by source: a named listing beats an earlier fallback one; of two named ones the first wins", () => {
    const fallback = parseWhole(`${F}\nfrom chat\n${F}\n\nonly.txt\n${F}\nnamed\n${F}\n`, ctx(["only.txt"]));
    expect(fallback.edits).toEqual([{ kind: "whole", path: "only.txt", content: "named\n" }]);
    const twice = parseWhole(`a.txt\n${F}\nfirst\n${F}\na.txt\n${F}\nsecond\n${F}\n`, ctx(["a.txt", "b.txt"]));
    expect(twice.edits).toEqual([{ kind: "whole", path: "a.txt", content: "first\n" }]);
  });

  it("reads several files in answer order", () => {
    const r = parseWhole(`b.txt\n${F}\nB\n${F}\n\nsrc/new/c.txt\n${F}\nC\n${F}\n`, ctx(["a.txt", "b.txt"]));
    expect(r.edits.map((e) => e.path)).toEqual(["b.txt", "src/new/c.txt"]);
  });
});

describe("parseWhole: answers in another format", () => {
  it.each([
    ["a unified diff", "```diff\n--- a/a.py\n+++ b/a.py\n@@ @@\n-x\n+y\n```\n"],
    ["SEARCH/REPLACE", "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"],
    ["a V4A patch", "```\n*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n```\n"],
  ])("refuses %s instead of writing it over the file", (_case, answer) => {
    const r = parseWhole(answer, ctx(["a.py"]));
    expect(r.edits).toEqual([]);
    expect(r.failures.map((f) => [f.path, f.reason])).toEqual([["a.py", "malformed"]]);
  });

  it("writes a .patch file whose content is a diff", () => {
    const r = parseWhole("fix.patch\n```diff\n--- a/x\n+++ b/x\n```\n", ctx(["a.py"]));
    expect(r.edits).toEqual([{ kind: "whole", path: "fix.patch", content: "--- a/x\n+++ b/x\n" }]);
  });
});
