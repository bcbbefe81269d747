import { detectShape, restoreShape, toLf } from "../../src/edits/line-endings.js";

describe("line endings", () => {
  it.each([
    ["a\nb\n", "\n", true],
    ["a\r\nb\r\n", "\r\n", true],
    ["a\r\nb", "\r\n", false],
    ["a\nb", "\n", false],
    ["", "\n", true],
    ["a\r\nb\r\nc\n", "\r\n", true],
    ["a\nb\nc\r\n", "\n", true],
  ])("detects the shape of %j", (text, eol, finalNewline) => {
    expect(detectShape(text)).toEqual({ eol, finalNewline });
  });

  it("normalises CRLF to LF and keeps a lone CR, which is content", () => {
    expect(toLf("a\r\nb\rc\r\n")).toBe("a\nb\rc\n");
  });

  it.each([["a\r\nb\r\n"], ["a\r\nb"], ["a\nb"], ["a\nb\n"], ["x\r\n\r\n"], ["only"]])("restores %j after a round trip", (text) => {
    expect(restoreShape(toLf(text), detectShape(text))).toBe(text);
  });

  it("keeps an emptied file empty and gives new text the file's shape", () => {
    expect(restoreShape("", { eol: "\r\n", finalNewline: true })).toBe("");
    expect(restoreShape("a\nb", { eol: "\r\n", finalNewline: true })).toBe("a\r\nb\r\n");
    expect(restoreShape("a\nb\n", { eol: "\n", finalNewline: false })).toBe("a\nb");
  });
});
