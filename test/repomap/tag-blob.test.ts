import { decodeFileTags, decodeTags, encodeFileTags, lazyFileTags } from "../../src/repomap/tag-blob.js";
import type { FileTags } from "../../src/repomap/types.js";

const sample: FileTags = {
  relPath: "src/naïve.ts",
  tags: [
    { relPath: "src/naïve.ts", name: "größe", kind: "def", line: 0 },
    { relPath: "src/naïve.ts", name: "render", kind: "ref", line: 70_000 },
    { relPath: "src/naïve.ts", name: "größe", kind: "ref", line: 3 },
  ],
  contexts: { 0: [0], 3: [0, 3] },
  rows: { 0: "export const größe = () => 1;", 3: '  größe(); // ✓ "quoted"' },
  lineCount: 70_001,
};

describe("tag blobs", () => {
  test("round-trip tags, contexts, rows and line count, named for the file they are read as", () => {
    const blob = encodeFileTags(sample);
    expect(decodeFileTags(blob, sample.relPath)).toEqual(sample);
    // A copy of the content under another path shares the blob.
    expect(decodeTags(blob, "copy.ts").map((t) => t.relPath)).toEqual(["copy.ts", "copy.ts", "copy.ts"]);
    // A blob read back from a larger buffer (as the cache hands them out) decodes the same.
    const framed = new Uint8Array(blob.length + 10);
    framed.set(blob, 5);
    expect(decodeFileTags(framed.subarray(5, 5 + blob.length), sample.relPath)).toEqual(sample);
  });

  test("a file without tags", () => {
    const empty: FileTags = { relPath: "a.py", tags: [], contexts: {}, rows: {}, lineCount: 0 };
    expect(decodeFileTags(encodeFileTags(empty), "a.py")).toEqual(empty);
  });

  test("lazyFileTags reads the blob once, and only when asked", () => {
    let reads = 0;
    const file = lazyFileTags(sample.relPath, "h", (s: typeof sample) => (reads++, encodeFileTags(s)), sample);
    expect(reads).toBe(0);
    expect(file.fileTags()).toEqual(sample);
    expect(file.columns()).toEqual({
      names: ["größe", "render"],
      name: Int32Array.of(0, 1, 0),
      line: Int32Array.of(0, 70_000, 3),
      def: Uint8Array.of(1, 0, 0),
    });
    expect(reads).toBe(1);
  });
});
