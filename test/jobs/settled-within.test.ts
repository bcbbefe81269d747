import { settledWithin } from "../../src/jobs/settled-within.js";

describe("settledWithin", () => {
  it("is true for a promise that resolves in time, false for one that does not; a rejection passes through", async () => {
    expect(await settledWithin(Promise.resolve(), 1000)).toBe(true);
    expect(await settledWithin(new Promise<never>(() => {}), 0)).toBe(false);
    const failed = Promise.reject(new Error("x"));
    failed.catch(() => undefined);
    await expect(settledWithin(failed, 1000)).rejects.toThrow("x");
  });

  it("ticks while it waits: a shutdown renews its leases meanwhile", async () => {
    let ticks = 0;
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const waiting = settledWithin(done, 60_000, () => {
      ticks++;
      if (ticks === 2) finish();
    });
    expect(await waiting).toBe(true);
    expect(ticks).toBe(2);
  });
});
