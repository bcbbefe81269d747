import { createTickBatch, type Settled } from "../../src/jobs/tick-batch.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A batch function that records each batch it is given and answers per item (odd numbers fail). */
function recorder() {
  const batches: number[][] = [];
  const flush = async (items: number[]): Promise<Settled<number>[]> => {
    batches.push(items);
    return items.map((n) => (n % 2 === 1 ? { ok: false, error: new Error(`odd ${n}`) } : { ok: true, value: n * 10 }));
  };
  return { batches, flush };
}

describe("createTickBatch", () => {
  it("runs the calls made in one turn as one batch, in call order, and gives each caller its own outcome", async () => {
    const { batches, flush } = recorder();
    const call = createTickBatch(flush);
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map((n) => call(n)));
    expect(batches).toEqual([[0, 1, 2, 3, 4]]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
      0,
      "odd 1",
      20,
      "odd 3",
      40,
    ]);
  });

  it("starts a new batch for calls made in a later turn, while the earlier batch is still running", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const call = createTickBatch(async (items: number[]) => {
      batches.push(items);
      if (items.includes(1)) await held; // the first batch waits until the second has started
      return items.map((n): Settled<number> => ({ ok: true, value: n }));
    });
    const first = Promise.all([call(1), call(2)]);
    await nextTurn();
    const second = Promise.all([call(3), call(4)]);
    await nextTurn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    release();
    expect(await first).toEqual([1, 2]);
    expect(await second).toEqual([3, 4]);
  });

  it("splits a turn's calls into batches of at most maxSize", async () => {
    const { batches, flush } = recorder();
    const call = createTickBatch(flush, 2);
    await Promise.allSettled([0, 2, 4, 6, 8].map((n) => call(n)));
    expect(batches).toEqual([[0, 2], [4, 6], [8]]);
  });

  it("rejects every caller of a batch whose run throws, and goes on with the next batch", async () => {
    let fail = true;
    const call = createTickBatch(async (items: string[]) => {
      if (fail) throw new Error("store down");
      return items.map((s): Settled<string> => ({ ok: true, value: s.toUpperCase() }));
    });
    const failed = await Promise.allSettled([call("a"), call("b")]);
    expect(failed.map((o) => o.status === "rejected" && (o.reason as Error).message)).toEqual([
      "store down",
      "store down",
    ]);
    fail = false;
    expect(await Promise.all([call("c"), call("d")])).toEqual(["C", "D"]);
  });
});
