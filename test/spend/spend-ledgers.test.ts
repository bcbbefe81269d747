import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { emptyBucket, reserve, settle, type BucketState } from "../../src/spend/ledger-math.js";
import { createLmdbLedger } from "../../src/spend/lmdb-ledger.js";
import { createRedisLedger } from "../../src/spend/redis-ledger.js";
import type { LedgerBucket, SpendLedger } from "../../src/spend/spend-ledger.js";
import { has } from "../helpers/needs.js";
import { createLedgerGuard } from "../../src/spend/ledger-spend-guard.js";
import { planBuckets } from "../../src/spend/plan-buckets.js";
import { renderUsage } from "../../src/spend/render-usage.js";
import { resolveLimits } from "../../src/spend/spend-limits.js";
import { startRedisServer } from "../jobs/redis-server.js";

const hasRedisServer = has("redis");

const DAY = 86_400_000;
let redis: Awaited<ReturnType<typeof startRedisServer>> | null = null;
let dir: string;
let seq = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "spend-ledger-"));
  if (hasRedisServer) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

type Make = () => { a: SpendLedger; b: SpendLedger; close(): Promise<void> };
const stores: [string, Make][] = [
  [
    "LMDB",
    () => {
      const file = path.join(dir, `lmdb-${++seq}`);
      const a = createLmdbLedger(file);
      const b = createLmdbLedger(file);
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
  ],
  ...(hasRedisServer
    ? ([
        [
          "Redis",
          () => {
            const prefix = `t${++seq}`;
            const a = createRedisLedger(redis!.url, prefix);
            const b = createRedisLedger(redis!.url, prefix);
            return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
          },
        ],
      ] as [string, Make][])
    : []),
];

describe.each(stores)("%s ledger", (_name, make) => {
  it("two clients reserving at once against a limit that fits five: exactly five holds are granted", async () => {
    const { a, b, close } = make();
    try {
      const buckets: LedgerBucket[] = [
        { key: "repo/o/r/day/2026-11-28", limit: { tokens: 55 }, ttlMs: DAY },
        { key: "installation/1/day/2026-11-28", limit: {}, ttlMs: DAY },
      ];
      const now = Date.now();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).reserve(buckets, `r${i}`, { usdMicros: 0, tokens: 10 }, now + 60_000, now),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
      const refused = outcomes.find((o) => !o.ok);
      expect(refused).toMatchObject({
        ok: false,
        crossing: { index: 0, unit: "tokens", spent: 0, held: 50, limit: 55, asked: 10 },
      });
      const [day, installation] = await a.read(buckets.map((x) => x.key));
      expect(Object.keys(day!.holds)).toHaveLength(5);
      expect(Object.keys(installation!.holds)).toHaveLength(5);
    } finally {
      await close();
    }
  });

  it("runs the same arithmetic as ledger-math over any sequence of reserves and settles", async () => {
    const { a, b, close } = make();
    try {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              settle: fc.boolean(),
              usd: fc.integer({ min: 0, max: 3_000_000 }),
              tokens: fc.integer({ min: 0, max: 9_000 }),
              unpriced: fc.boolean(),
            }),
            { maxLength: 12 },
          ),
          async (ops) => {
            const buckets: LedgerBucket[] = [
              { key: `p${++round}/a`, limit: { usdMicros: 5_000_000, tokens: 20_000 }, ttlMs: DAY },
              { key: `p${round}/b`, limit: { tokens: 12_000 }, ttlMs: DAY },
            ];
            let model: BucketState[] = [emptyBucket(), emptyBucket()];
            const open: string[] = [];
            const now = Date.now();
            for (const [i, o] of ops.entries()) {
              const ledger = i % 2 ? a : b;
              if (o.settle && open.length) {
                const id = open.shift()!;
                await ledger.settle(buckets, id, { usdMicros: o.usd, tokens: o.tokens }, o.unpriced, now);
                model = settle(model, id, { usdMicros: o.usd, tokens: o.tokens }, o.unpriced, now);
                continue;
              }
              const id = `h${i}`;
              const got = await ledger.reserve(buckets, id, { usdMicros: o.usd, tokens: o.tokens }, now + 60_000, now);
              const want = reserve(
                model,
                buckets.map((x) => x.limit),
                id,
                { usdMicros: o.usd, tokens: o.tokens },
                now + 60_000,
                now,
              );
              expect(got.ok).toBe(want.ok);
              if (!want.ok) expect(got).toEqual({ ok: false, crossing: want.crossing });
              else {
                model = want.buckets;
                open.push(id);
              }
            }
            expect(await a.read(buckets.map((x) => x.key))).toEqual(model);
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await close();
    }
  });
});

describe.each(stores)("%s ledger with prompt caching", (_name, make) => {
  it("adds up the prompt tokens read from the cache, as part of the tokens; /aider usage shows them", async () => {
    const { a, b, close } = make();
    try {
      const now = Date.UTC(2026, 10, 28, 12, 0);
      const limits = resolveLimits({}, { day_usd: 5, timezone: "UTC" });
      const scope = { installationId: 3, owner: "o", repo: "r", number: 1, runId: "j" };
      const guard = createLedgerGuard({ ledger: a, scope, limits, now: () => now });
      for (const usage of [
        { prompt: 20_000, completion: 500, cacheWrite: 19_000 },
        { prompt: 24_000, completion: 400, cacheRead: 19_900, cacheWrite: 4_000 },
        { prompt: 27_400, completion: 300, cacheRead: 24_180 },
      ]) {
        const hold = await guard.reserve({ model: "claude-sonnet-4", tokens: usage, costUsd: 0.1 });
        if (!hold.ok) throw new Error(hold.message);
        await guard.settle(hold.id, { tokens: usage, costUsd: 0.05 });
      }
      const buckets = planBuckets(scope, limits, now).filter((x) => x.scope === "repo-day");
      const [state] = await b.read(buckets.map((x) => x.key));
      expect(state!.spent).toEqual({ usdMicros: 150_000, tokens: 72_600, cacheRead: 44_080 });
      expect(renderUsage(buckets, [state!], now)).toContain("| 72,600, 44,080 read from cache |");
    } finally {
      await close();
    }
  });
});

it("the LMDB ledger survives its process closing it: a reopened file holds the spend", async () => {
  const file = path.join(dir, "reopen");
  const first = createLmdbLedger(file);
  const buckets: LedgerBucket[] = [{ key: "repo/o/r/month/2026-11", limit: { tokens: 100 }, ttlMs: DAY }];
  const now = Date.now();
  expect(await first.reserve(buckets, "x", { usdMicros: 0, tokens: 90 }, now + 60_000, now)).toEqual({ ok: true });
  await first.settle(buckets, "x", { usdMicros: 1_234, tokens: 70 }, false, now);
  await first.close();
  const second = createLmdbLedger(file);
  try {
    const [state] = await second.read([buckets[0]!.key]);
    expect(state).toEqual({ spent: { usdMicros: 1_234, tokens: 70 }, unpriced: 0, holds: {} });
    expect((await second.reserve(buckets, "y", { usdMicros: 0, tokens: 40 }, now + 60_000, now)).ok).toBe(false);
  } finally {
    await second.close();
  }
});
