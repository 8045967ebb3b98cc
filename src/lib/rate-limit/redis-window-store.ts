import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Counter, Gauge } from "prom-client";
import Type, { type Static } from "typebox";
import type { Clock } from "../clock.ts";
import { createFallbackWindowStore } from "./fallback-window-store.ts";
import type { SlidingWindowStore } from "./sliding-window.ts";

// One script per operation so the read-check-write of a window is atomic across every instance.
// The time comes from the caller (one clock per request), members are made unique with a nonce.
const HIT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local cost = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
local roomScore = -1
if count + cost <= limit then
  for i = 1, cost do redis.call('ZADD', key, now, ARGV[4] .. '.' .. i) end
  count = count + cost
  allowed = 1
else
  local nth = count + cost - limit - 1
  local room = redis.call('ZRANGE', key, nth, nth, 'WITHSCORES')
  if room[2] then roomScore = tonumber(room[2]) end
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldestScore = -1
if oldest[2] then oldestScore = tonumber(oldest[2]) end
return {allowed, count, oldestScore, roomScore}
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

/** The two scripts as commands of the client: sent once, then called by their SHA1 (EVALSHA). */
interface WindowCommands {
  mpWindowHit(
    key: string,
    nowMs: number,
    windowMs: number,
    limit: number,
    member: string,
    cost: number,
  ): Promise<[number, number, number, number]>;
  mpWindowPeek(key: string, nowMs: number, windowMs: number): Promise<[number, number]>;
}

export function createRedisWindowStore(redis: Redis, prefix = "mp:rl:"): SlidingWindowStore {
  // EVALSHA instead of EVAL: the script's text is not sent (nor hashed by Redis) on every hit.
  // ioredis sends the text once per connection when Redis answers NOSCRIPT (after a restart).
  redis.defineCommand("mpWindowHit", { numberOfKeys: 1, lua: HIT });
  redis.defineCommand("mpWindowPeek", { numberOfKeys: 1, lua: PEEK });
  const commands = redis as Redis & WindowCommands;
  // Members must be unique across instances: a random instance id and a counter, no per-hit random.
  const instance = randomBytes(6).toString("base64url");
  let sequence = 0;
  const record = async (key: string, limit: number, windowMs: number, nowMs: number, cost: number) => {
    const member = `${nowMs}-${instance}-${sequence++}`;
    const [allowed, count, oldest, room] = await commands.mpWindowHit(
      prefix + key,
      nowMs,
      windowMs,
      Number.isFinite(limit) ? limit : 1e9,
      member,
      cost,
    );
    return {
      allowed: allowed === 1,
      count,
      oldestMs: oldest < 0 ? null : oldest,
      roomAtMs: room < 0 ? null : room,
      // The script names a hit's entries `<member>.1` … `<member>.<cost>`.
      member: allowed === 1 ? `${member}.${cost}` : null,
    };
  };
  return {
    async hit(key, limit, windowMs, nowMs, cost = 1) {
      const { member: _, ...state } = await record(key, limit, windowMs, nowMs, cost);
      return state;
    },
    reserve: (key, limit, windowMs, nowMs) => record(key, limit, windowMs, nowMs, 1),
    async release(key, member) {
      // One command, atomic by itself; a member already aged out (or cleared) is not there.
      await redis.zrem(prefix + key, member);
    },
    async peek(key, windowMs, nowMs) {
      const [count, oldest] = await commands.mpWindowPeek(prefix + key, nowMs, windowMs);
      return { count, oldestMs: oldest < 0 ? null : oldest };
    },
    async clear(key) {
      await redis.del(prefix + key);
    },
  };
}

/** What readiness reports about Redis; declared once for the /readyz schema and the platform. */
export const RedisStatusSchema = Type.Union(
  [Type.Literal("ok"), Type.Literal("degraded"), Type.Literal("not_configured")],
  {
    description:
      "`ok`: Redis answers and limits are shared by every instance. `degraded`: Redis does not answer; the service still serves, with rate limits and credential throttles counted per instance until Redis returns. `not_configured`: no REDIS_URL.",
  },
);
export type RedisStatus = Static<typeof RedisStatusSchema>;

/** How often an open circuit probes Redis (besides each reconnect of the client). */
const PROBE_INTERVAL_MS = 1000;

/**
 * The window store of a platform with Redis: Redis while it answers, per-process memory while it
 * does not (see createFallbackWindowStore). The switch is logged once each way and exported as
 * Prometheus metrics (register `metrics` in the registry /metrics serves).
 */
export function createSharedWindowStore(
  redis: Redis,
  deps: { clock: Clock; logger: Pick<Logger, "warn" | "info"> },
) {
  const fallbackOperations = new Counter({
    name: "merchant_redis_fallback_operations_total",
    help: "Rate-limit and throttle operations answered from per-process memory because Redis did not answer.",
    registers: [],
  });
  const store = createFallbackWindowStore({
    primary: createRedisWindowStore(redis),
    ping: () => redis.ping(),
    clock: deps.clock,
    probeIntervalMs: PROBE_INTERVAL_MS,
    onFallback: () => fallbackOperations.inc(),
    onChange(event) {
      if (event.degraded) {
        deps.logger.warn(
          { err: event.error },
          "Redis is unavailable: rate limits and credential throttles count per instance until it returns",
        );
      } else {
        deps.logger.info(
          { downSeconds: event.downMs / 1000, fallbackOperations: event.fallbackOperations },
          "Redis is back: rate limits and credential throttles are shared again",
        );
      }
    },
  });
  const degraded = new Gauge({
    name: "merchant_redis_degraded",
    help: "1 while Redis does not answer and rate limits count per instance, else 0.",
    registers: [],
    collect() {
      this.set(store.degraded() ? 1 : 0);
    },
  });
  // A reconnect is the likeliest moment Redis is back: probe at once rather than on the next tick.
  const onReady = () => void store.probe();
  redis.on("ready", onReady);
  return {
    store,
    metrics: [degraded, fallbackOperations],
    async status(): Promise<RedisStatus> {
      return (await store.healthy()) ? "ok" : "degraded";
    },
    close() {
      redis.off("ready", onReady);
      store.close();
    },
  };
}
export type SharedWindowStore = ReturnType<typeof createSharedWindowStore>;
