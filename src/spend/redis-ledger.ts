import { Redis } from "ioredis";
import type { BucketState, Hold } from "./ledger-math.js";
import type { LedgerBucket, SpendLedger } from "./spend-ledger.js";

// The same arithmetic as ledger-math's `reserve`, in one script, so the check and the hold are one atomic step for
// every worker. KEYS: per bucket, its hash (usd, tokens, unpriced) then its holds hash (id → "usd:tokens:until").
// ARGV: id, usd, tokens, until, now, n, then per bucket: usd limit (-1: none), token limit (-1: none), ttl ms.
const RESERVE = `
local id, usd, tok, untilMs, now, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
for i = 1, n do
  local b, h = KEYS[2*i-1], KEYS[2*i]
  local lu, lt = tonumber(ARGV[4+3*i]), tonumber(ARGV[5+3*i])
  local su = tonumber(redis.call('HGET', b, 'usd') or '0')
  local st = tonumber(redis.call('HGET', b, 'tokens') or '0')
  local hu, ht = 0, 0
  local all = redis.call('HGETALL', h)
  for j = 1, #all, 2 do
    local u, t, till = string.match(all[j+1], '^(%d+):(%d+):(%d+)$')
    if tonumber(till) <= now then redis.call('HDEL', h, all[j]) else hu = hu + tonumber(u); ht = ht + tonumber(t) end
  end
  if lu >= 0 and su + hu + usd > lu then return {0, i-1, 'usd', tostring(su), tostring(hu), ARGV[4+3*i]} end
  if lt >= 0 and st + ht + tok > lt then return {0, i-1, 'tokens', tostring(st), tostring(ht), ARGV[5+3*i]} end
end
for i = 1, n do
  local ttl = ARGV[6+3*i]
  redis.call('HSET', KEYS[2*i], id, ARGV[2] .. ':' .. ARGV[3] .. ':' .. untilMs)
  redis.call('PEXPIRE', KEYS[2*i], ttl)
  redis.call('HSETNX', KEYS[2*i-1], 'usd', 0)
  redis.call('PEXPIRE', KEYS[2*i-1], ttl)
end
return {1}
`;

// ledger-math's `settle`. ARGV: id, usd, tokens, unpriced (0/1), n, then per bucket its ttl ms, then the cache reads
// (last, so a script of an older version that a rolling deploy still runs reads the same positions).
const SETTLE = `
local n = tonumber(ARGV[5])
local cached = ARGV[6+n] or '0'
for i = 1, n do
  redis.call('HDEL', KEYS[2*i], ARGV[1])
  redis.call('HINCRBY', KEYS[2*i-1], 'usd', ARGV[2])
  redis.call('HINCRBY', KEYS[2*i-1], 'tokens', ARGV[3])
  redis.call('HINCRBY', KEYS[2*i-1], 'unpriced', ARGV[4])
  if cached ~= '0' then redis.call('HINCRBY', KEYS[2*i-1], 'cache_read', cached) end
  redis.call('PEXPIRE', KEYS[2*i-1], ARGV[5+i])
end
return 1
`;

/** Every key in one hash slot (`{spend}`), so the scripts also run on a Redis Cluster. */
const bucketKey = (prefix: string, key: string) => `${prefix}:{spend}:${key}`;
const holdsKey = (prefix: string, key: string) => `${prefix}:{spend}:${key}:holds`;

/** The spend ledger in Redis: every worker's reserve and settle is one Lua script, atomic in Redis. */
export function createRedisLedger(redisUrl: string, prefix = "aider-bot"): SpendLedger {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
  const keysOf = (buckets: readonly LedgerBucket[]) =>
    buckets.flatMap((b) => [bucketKey(prefix, b.key), holdsKey(prefix, b.key)]);
  return {
    async reserve(buckets, id, amount, untilMs, nowMs) {
      const limits = buckets.flatMap((b) => [b.limit.usdMicros ?? -1, b.limit.tokens ?? -1, b.ttlMs]);
      const args = [id, amount.usdMicros, amount.tokens, untilMs, nowMs, buckets.length, ...limits].map(String);
      const reply = (await redis.eval(RESERVE, buckets.length * 2, ...keysOf(buckets), ...args)) as (number | string)[];
      if (reply[0] === 1) return { ok: true };
      const unit = reply[2] === "usd" ? "usd" : "tokens";
      return {
        ok: false,
        crossing: {
          index: Number(reply[1]),
          unit,
          spent: Number(reply[3]),
          held: Number(reply[4]),
          limit: Number(reply[5]),
          asked: unit === "usd" ? amount.usdMicros : amount.tokens,
        },
      };
    },
    async settle(buckets, id, used, unpriced, _nowMs) {
      const args = [
        id,
        Math.max(0, Math.round(used.usdMicros)),
        Math.max(0, Math.round(used.tokens)),
        unpriced ? 1 : 0,
        buckets.length,
        ...buckets.map((b) => b.ttlMs),
        Math.max(0, Math.round(used.cacheRead ?? 0)),
      ].map(String);
      await redis.eval(SETTLE, buckets.length * 2, ...keysOf(buckets), ...args);
    },
    async read(keys) {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.hgetall(bucketKey(prefix, key)).hgetall(holdsKey(prefix, key));
      const replies = (await pipeline.exec()) ?? [];
      return keys.map((_, i) => {
        const bucket = (replies[2 * i]?.[1] ?? {}) as Record<string, string>;
        const holds = (replies[2 * i + 1]?.[1] ?? {}) as Record<string, string>;
        return toState(bucket, holds);
      });
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

function toState(bucket: Record<string, string>, holds: Record<string, string>): BucketState {
  const parsed: Record<string, Hold> = {};
  for (const [id, value] of Object.entries(holds)) {
    const [usd, tokens, until] = value.split(":").map(Number);
    parsed[id] = { usdMicros: usd ?? 0, tokens: tokens ?? 0, untilMs: until ?? 0 };
  }
  const cacheRead = Number(bucket.cache_read ?? 0);
  return {
    spent: {
      usdMicros: Number(bucket.usd ?? 0),
      tokens: Number(bucket.tokens ?? 0),
      ...(cacheRead > 0 ? { cacheRead } : {}),
    },
    unpriced: Number(bucket.unpriced ?? 0),
    holds: parsed,
  };
}
