import { createExtractorPool } from "../../src/repomap/extractor-pool.js";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import { decodeFileTags, encodeFileTags } from "../../src/repomap/tag-blob.js";

const code = (i: number) => `export class Widget${i} {\n  render(): string {\n    return helper${i}();\n  }\n}\n`;

describe("createExtractorPool", () => {
  test("a worker thread extracts exactly what this thread does", async () => {
    const pool = createExtractorPool(1);
    const here = createTagExtractor();
    try {
      expect(pool.threads).toBe(1);
      const blobs = await Promise.all([0, 1, 2].map((i) => pool.extract(`src/w${i}.ts`, code(i))));
      for (const [i, blob] of blobs.entries()) {
        expect(blob).toBeInstanceOf(Uint8Array);
        const expected = await here.extract(`src/w${i}.ts`, code(i));
        expect(decodeFileTags(blob as Uint8Array, `src/w${i}.ts`)).toEqual(expected);
        expect(Buffer.from(blob as Uint8Array).equals(encodeFileTags(expected as never))).toBe(true);
      }
      // Not a language we parse: answered null, not undefined (undefined means "do it yourself").
      expect(await pool.extract("notes.txt", "hello")).toBeNull();
      expect(pool.pending).toBe(0);
    } finally {
      here.dispose();
      await pool.dispose();
    }
  });

  test("a worker that cannot start hands every job back (undefined), so the caller parses it", async () => {
    const pool = createExtractorPool(2, { code: "throw new Error('no parsers here')" });
    try {
      const answers = await Promise.all([pool.extract("a.ts", code(1)), pool.extract("b.ts", code(2))]);
      expect(answers).toEqual([undefined, undefined]);
      // Once dead, no job waits for it.
      expect(await pool.extract("c.ts", code(3))).toBeUndefined();
    } finally {
      await pool.dispose();
    }
  });

  test("a reply is a Result: a value (null: not parsed) is the answer, a failure hands the job back (undefined)", async () => {
    // A worker that answers `.ts` files with ok(null) and anything else with a failure.
    const pool = createExtractorPool(1, {
      code: `const { parentPort } = require("node:worker_threads");
        parentPort.on("message", (r) => parentPort.postMessage(r.relPath.endsWith(".ts")
          ? { id: r.id, ok: true, value: null }
          : { id: r.id, ok: false, reason: "extract-failed", message: "boom" }));`,
    });
    try {
      expect(await pool.extract("a.ts", code(1))).toBeNull();
      expect(await pool.extract("b.py", "x = 1\n")).toBeUndefined();
      // A failed file does not mark the worker dead: the next job still goes to it.
      expect(pool.healthy).toBe(true);
    } finally {
      await pool.dispose();
    }
  });
});
