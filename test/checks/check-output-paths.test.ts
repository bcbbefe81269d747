import { parseEslintJson } from "../../src/checks/parse-eslint-json.js";
import { relativeToRoot } from "../../src/checks/relative-to-root.js";
import { shellQuote } from "../../src/checks/shell-quote.js";

describe("shellQuote: a file name from the model can never inject shell syntax", () => {
  it("leaves safe words bare and single-quotes the rest, escaping quotes inside", () => {
    expect(shellQuote("src/a-b_c.ts")).toBe("src/a-b_c.ts");
    expect(shellQuote("my file.ts")).toBe("'my file.ts'");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("$(rm -rf ~);`id`")).toBe("'$(rm -rf ~);`id`'");
  });
});

describe("relativeToRoot: tool-printed paths as repository paths, or null outside it", () => {
  const root = "/work/repo/";
  it("makes paths under the root relative and keeps relative ones, normalised", () => {
    expect(relativeToRoot("/work/repo/src/a.ts", root)).toBe("src/a.ts");
    expect(relativeToRoot(" ./src//b.py ", root)).toBe("src/b.py");
    expect(relativeToRoot("src\\win\\c.ts", root)).toBe("src/win/c.ts");
  });

  it("reads file URLs (Node's ESM stack frames) as the paths they name", () => {
    expect(relativeToRoot("file:///work/repo/src/a.ts", root)).toBe("src/a.ts");
    expect(relativeToRoot("file:///work/repo/src/my%20file.ts", root)).toBe("src/my file.ts");
    expect(relativeToRoot("file:///usr/lib/node/x.js", root)).toBeNull();
    expect(relativeToRoot("file:///work/repo/src/%2e%2e/%2e%2e/etc/passwd", root)).toBeNull();
    expect(relativeToRoot("file:///work/repo/src/bad%E0.ts", root)).toBe("src/bad%E0.ts");
  });

  it("drops other absolute paths, escapes, URLs and empty paths", () => {
    expect(relativeToRoot("/usr/lib/python3/os.py", root)).toBeNull();
    expect(relativeToRoot("/work/repository-other/a.ts", root)).toBeNull();
    expect(relativeToRoot("../secret.txt", root)).toBeNull();
    expect(relativeToRoot("src/../../etc/passwd", root)).toBeNull();
    expect(relativeToRoot("C:/Windows/x.ts", root)).toBeNull();
    expect(relativeToRoot("https://example.com/a.ts", root)).toBeNull();
    expect(relativeToRoot("  ", root)).toBeNull();
    expect(relativeToRoot("/work/repo/", root)).toBeNull();
  });
});

describe("parseEslintJson", () => {
  it("reads ESLint's JSON around other output, with rule ids in the message", () => {
    const json = JSON.stringify([
      {
        filePath: "/r/src/a.ts",
        messages: [
          { line: 3, column: 7, message: "'x' is unused.", ruleId: "no-unused-vars", severity: 2 },
          { message: "file-level, no line" },
          { line: 9, message: "Parsing error", ruleId: null },
        ],
      },
      { filePath: "/r/src/b.ts", messages: [] },
    ]);
    expect(parseEslintJson(`> lint\n> eslint -f json .\n${json}\nnpm ERR! lint failed`)).toEqual([
      { path: "/r/src/a.ts", line: 3, column: 7, message: "'x' is unused. (no-unused-vars)" },
      { path: "/r/src/a.ts", line: 9, message: "Parsing error" },
    ]);
  });

  it("is null for output that is not ESLint's array (the text parsers take over)", () => {
    expect(parseEslintJson("src/a.ts:3:7: error")).toBeNull();
    expect(parseEslintJson("at [{ not json }]")).toBeNull();
    expect(parseEslintJson('[{"name": "a test"}]')).toBeNull();
  });
});
