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
    expect(detectShape(text)).toEqual({ eol, finalNewline, bom: false });
  });

  it("normalises CRLF to LF and keeps a lone CR, which is content", () => {
    expect(toLf("a\r\nb\rc\r\n")).toBe("a\nb\rc\n");
  });

  it("takes a BOM off for the formats and puts it back once", () => {
    const shape = detectShape("\uFEFFa\r\n");
    expect(shape).toEqual({ eol: "\r\n", finalNewline: true, bom: true });
    expect(toLf("\uFEFFa\r\n")).toBe("a\n");
    expect(restoreShape("\uFEFFb\n", shape)).toBe("\uFEFFb\r\n");
  });

  it.each([
    ["a\r\nb\r\n"],
    ["a\r\nb"],
    ["a\nb"],
    ["a\nb\n"],
    ["x\r\n\r\n"],
    ["only"],
    ["\uFEFFa\r\nb\r\n"],
    ["\uFEFFa"],
  ])("restores %j after a round trip", (text) => {
    expect(restoreShape(toLf(text), detectShape(text))).toBe(text);
  });

  it("keeps an emptied file empty and gives new text the file's shape", () => {
    expect(restoreShape("", { eol: "\r\n", finalNewline: true, bom: true })).toBe("");
    expect(restoreShape("a\nb", { eol: "\r\n", finalNewline: true, bom: false })).toBe("a\r\nb\r\n");
    expect(restoreShape("a\nb\n", { eol: "\n", finalNewline: false, bom: false })).toBe("a\nb");
  });
});
