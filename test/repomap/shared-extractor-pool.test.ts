import { at } from "../helpers/at.js";
import { jest } from "@jest/globals";
import type { ExtractorPool } from "../../src/repomap/extractor-pool.js";
import { closeSharedExtractorPools, leaseExtractorPool } from "../../src/repomap/shared-extractor-pool.js";
import { createTagExtractor } from "../../src/repomap/extract-tags.js";
import { decodeFileTags } from "../../src/repomap/tag-blob.js";

/** A pool that answers nothing, counts its disposals and can be marked failed. */
function fakePool(threads: number): ExtractorPool & { disposed: number; fail(): void } {
  let healthy = true;
  return {
    threads,
    pending: 0,
    disposed: 0,
    get healthy() {
      return healthy;
    },
    fail() {
      healthy = false;
    },
    extract: () => Promise.resolve(null),
    async dispose() {
      this.disposed++;
    },
  };
}

afterEach(async () => {
  jest.useRealTimers();
  await closeSharedExtractorPools();
});

describe("leaseExtractorPool", () => {
  test("builds one after another share the workers; concurrent builds too", () => {
    const made: ReturnType<typeof fakePool>[] = [];
    const create = (n: number) => (made.push(fakePool(n)), at(made, -1));
    const a = leaseExtractorPool(2, { create });
    const b = leaseExtractorPool(2, { create });
    expect(b.pool).toBe(a.pool);
    a.release();
    b.release();
    const c = leaseExtractorPool(2, { create });
    expect(c.pool).toBe(a.pool);
    c.release();
    expect(made).toHaveLength(1);
    expect(made[0]!.disposed).toBe(0);
    // Another size is another pool.
    leaseExtractorPool(1, { create }).release();
    expect(made.map((p) => p.threads)).toEqual([2, 1]);
  });

  test("workers unused for idleMs are stopped, and the next build starts new ones", async () => {
    jest.useFakeTimers();
    const made: ReturnType<typeof fakePool>[] = [];
    const create = (n: number) => (made.push(fakePool(n)), at(made, -1));
    const first = leaseExtractorPool(1, { create, idleMs: 20 });
    first.release();
    first.release(); // a second release of the same lease changes nothing
    // Taken again before the timer fires: the timer is cancelled.
    const again = leaseExtractorPool(1, { create, idleMs: 20 });
    await jest.advanceTimersByTimeAsync(60);
    expect(made[0]!.disposed).toBe(0);
    again.release();
    await jest.advanceTimersByTimeAsync(60);
    expect(made[0]!.disposed).toBe(1);
    const next = leaseExtractorPool(1, { create, idleMs: 20 });
    expect(next.pool).not.toBe(made[0]);
    expect(made).toHaveLength(2);
    next.release();
  });

  test("a pool with a failed worker is stopped when its last build gives it back; the next build gets a new one", () => {
    const made: ReturnType<typeof fakePool>[] = [];
    const create = (n: number) => (made.push(fakePool(n)), at(made, -1));
    const a = leaseExtractorPool(1, { create });
    const b = leaseExtractorPool(1, { create });
    made[0]!.fail();
    a.release();
    // b still uses it: not stopped yet, but no longer handed out.
    expect(made[0]!.disposed).toBe(0);
    const c = leaseExtractorPool(1, { create });
    expect(c.pool).toBe(made[1]);
    b.release();
    expect(made[0]!.disposed).toBe(1);
    c.release();
    expect(made[1]!.disposed).toBe(0);
  });

  test("real workers stay usable across leases and extract as this thread does", async () => {
    const code = "export class Widget {\n  render(): string {\n    return helper();\n  }\n}\n";
    const here = createTagExtractor();
    try {
      const expected = await here.extract("src/w.ts", code);
      for (let i = 0; i < 2; i++) {
        const lease = leaseExtractorPool(1);
        const blob = await lease.pool.extract("src/w.ts", code);
        expect(decodeFileTags(blob as Uint8Array, "src/w.ts")).toEqual(expected);
        lease.release();
      }
    } finally {
      here.dispose();
    }
  });
});
