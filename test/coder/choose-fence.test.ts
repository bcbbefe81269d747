import { describe, expect, it } from "@jest/globals";
import { chooseFence } from "../../src/coder/choose-fence.js";

describe("chooseFence", () => {
  it.each([
    ["plain code", ["const a = 1;\n"], "```"],
    ["a file with a triple-backtick line", ["# Doc\n```sh\nls\n```\n"], "````"],
    ["a fence line that is only indented inside", ["text\n  ```\n"], "```"],
    ["three and four backticks", ["```\n", "````js\n"], "<source>"],
    ["backticks and <source>", ["```\n````\n<source>x</source>\n"], "<code>"],
    ["a closing tag at a line start", ["```\n````\n</source>\n"], "<code>"],
    ["every candidate but the last", ["```\n````\n<source>\n<code>\n<pre>\n<codeblock>\n"], "<sourcecode>"],
    ["every candidate (falls back)", ["```\n````\n<source>\n<code>\n<pre>\n<codeblock>\n<sourcecode>\n"], "```"],
    ["no files", [], "```"],
    ["CRLF lines", ["a\r\n```\r\n"], "````"],
  ])("%s", (_name, contents, open) => {
    const fence = chooseFence(contents);
    expect(fence[0]).toBe(open);
    expect(fence[1]).toBe(open.startsWith("<") ? open.replace("<", "</") : open);
  });
});
