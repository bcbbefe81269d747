import fc from "fast-check";
import { emptyBucket, heldAmount, reserve, settle, type BucketState } from "../../src/spend/ledger-math.js";
import { dayKey, monthKey, nextDayStart, nextMonthStart } from "../../src/spend/period-key.js";
import type { Limit } from "../../src/spend/spend-limits.js";

type Op =
  | { kind: "reserve"; usd: number; tokens: number }
  | { kind: "settle"; pick: number; usd: number; tokens: number; unpriced: boolean }
  | { kind: "tick"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("reserve" as const),
    usd: fc.integer({ min: 0, max: 5_000_000 }),
    tokens: fc.integer({ min: 0, max: 50_000 }),
  }),
  fc.record({
    kind: fc.constant("settle" as const),
    pick: fc.nat(),
    usd: fc.integer({ min: 0, max: 5_000_000 }),
    tokens: fc.integer({ min: 0, max: 50_000 }),
    unpriced: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 2_000 }) }),
);
const limit: fc.Arbitrary<Limit> = fc.record(
  { usdMicros: fc.integer({ min: 0, max: 20_000_000 }), tokens: fc.integer({ min: 0, max: 200_000 }) },
  { requiredKeys: [] },
);

describe("reserve/settle arithmetic (property)", () => {
  it("never drifts, never goes negative, and a granted hold never takes a bucket past its limit", () => {
    fc.assert(
      fc.property(fc.array(limit, { minLength: 1, maxLength: 4 }), fc.array(op, { maxLength: 60 }), (limits, ops) => {
        let buckets: BucketState[] = limits.map(() => emptyBucket());
        let now = 1_000;
        const open: string[] = [];
        const settled = { usd: 0, tokens: 0, unpriced: 0 };
        let n = 0;
        for (const o of ops) {
          if (o.kind === "tick") {
            now += o.ms;
            continue;
          }
          if (o.kind === "reserve") {
            const id = `r${n++}`;
            const before = JSON.stringify(buckets);
            const out = reserve(buckets, limits, id, { usdMicros: o.usd, tokens: o.tokens }, now + 1_500, now);
            if (!out.ok) {
              // A refusal changes nothing, and names a bucket that really would have crossed.
              expect(JSON.stringify(buckets)).toBe(before);
              const c = out.crossing;
              expect(c.spent + c.held + c.asked).toBeGreaterThan(c.limit);
              continue;
            }
            buckets = out.buckets;
            open.push(id);
            buckets.forEach((b, i) => {
              const held = heldAmount(b, now);
              const l = limits[i]!;
              if (l.usdMicros !== undefined)
                expect(b.spent.usdMicros + held.usdMicros).toBeLessThanOrEqual(l.usdMicros);
              if (l.tokens !== undefined) expect(b.spent.tokens + held.tokens).toBeLessThanOrEqual(l.tokens);
            });
            continue;
          }
          if (open.length === 0) continue;
          const [id] = open.splice(o.pick % open.length, 1);
          buckets = settle(buckets, id!, { usdMicros: o.usd, tokens: o.tokens }, o.unpriced, now);
          settled.usd += o.usd;
          settled.tokens += o.tokens;
          settled.unpriced += o.unpriced ? 1 : 0;
        }
        for (const b of buckets) {
          // No drift: every bucket's spend is exactly the sum of what was settled, whatever the holds did.
          expect(b.spent).toEqual({ usdMicros: settled.usd, tokens: settled.tokens });
          expect(b.unpriced).toBe(settled.unpriced);
          const held = heldAmount(b, now);
          expect(held.usdMicros).toBeGreaterThanOrEqual(0);
          expect(held.tokens).toBeGreaterThanOrEqual(0);
          // Settled holds are gone; only open, unexpired ones remain.
          for (const id of Object.keys(b.holds)) expect(open).toContain(id);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a hold whose process died stops counting once it expires", () => {
    const limits = [{ tokens: 100 }];
    const first = reserve([emptyBucket()], limits, "a", { usdMicros: 0, tokens: 80 }, 2_000, 1_000);
    if (!first.ok) throw new Error("first hold refused");
    expect(reserve(first.buckets, limits, "b", { usdMicros: 0, tokens: 30 }, 3_000, 1_999).ok).toBe(false);
    expect(reserve(first.buckets, limits, "b", { usdMicros: 0, tokens: 30 }, 3_000, 2_000).ok).toBe(true);
  });
});

const ZONES = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "Asia/Kolkata",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
  "America/Sao_Paulo",
  "Pacific/Apia",
];
const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2060, 0, 1) });

describe("period keys in a time zone (property)", () => {
  it("the day ends at the zone's next midnight: the key changes there and not a moment before", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (t, tz) => {
        const end = nextDayStart(t, tz);
        expect(end).toBeGreaterThan(t);
        expect(end - t).toBeLessThanOrEqual(25 * 3_600_000);
        expect(dayKey(end - 1, tz)).toBe(dayKey(t, tz));
        expect(dayKey(end, tz)).not.toBe(dayKey(t, tz));
        expect(dayKey(end, tz) > dayKey(t, tz)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("the month ends at the zone's first midnight of the next month", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (t, tz) => {
        const end = nextMonthStart(t, tz);
        expect(monthKey(end - 1, tz)).toBe(monthKey(t, tz));
        expect(monthKey(end, tz)).not.toBe(monthKey(t, tz));
        expect(dayKey(end, tz).endsWith("-01")).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("counts days in the configured zone, not the server's", () => {
    const t = Date.UTC(2026, 10, 28, 23, 30); // 23:30 UTC on the 28th is already the 29th in Berlin
    expect(dayKey(t, "UTC")).toBe("2026-11-28");
    expect(dayKey(t, "Europe/Berlin")).toBe("2026-11-29");
    expect(monthKey(Date.UTC(2026, 10, 30, 23, 30), "Europe/Berlin")).toBe("2026-12");
    expect(new Date(nextDayStart(t, "Europe/Berlin")).toISOString()).toBe("2026-11-29T23:00:00.000Z");
  });
});
