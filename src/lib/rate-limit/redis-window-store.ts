import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { SlidingWindowStore } from "./sliding-window.ts";

// One script per operation so the read-check-write of a window is atomic across every instance.
// The time comes from the caller (one clock per request), members are made unique with a nonce.
const HIT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldestScore = -1
if oldest[2] then oldestScore = tonumber(oldest[2]) end
return {allowed, count, oldestScore}
`;

const PEEK = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldestScore = -1
if oldest[2] then oldestScore = tonumber(oldest[2]) end
return {count, oldestScore}
`;

export function createRedisWindowStore(redis: Redis, prefix = "mp:rl:"): SlidingWindowStore {
  return {
    async hit(key, limit, windowMs, nowMs) {
      const nonce = `${nowMs}-${randomBytes(6).toString("hex")}`;
      const [allowed, count, oldest] = (await redis.eval(
        HIT,
        1,
        prefix + key,
        nowMs,
        windowMs,
        Number.isFinite(limit) ? limit : 1e9,
        nonce,
      )) as [number, number, number];
      return { allowed: allowed === 1, count, oldestMs: oldest < 0 ? null : oldest };
    },
    async peek(key, windowMs, nowMs) {
      const [count, oldest] = (await redis.eval(PEEK, 1, prefix + key, nowMs, windowMs)) as [number, number];
      return { count, oldestMs: oldest < 0 ? null : oldest };
    },
    async clear(key) {
      await redis.del(prefix + key);
    },
  };
}
