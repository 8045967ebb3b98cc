import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { Redis } from "ioredis";
import { createRedisWindowStore } from "./redis-window-store.ts";
import { createMemoryWindowStore, type SlidingWindowStore } from "./sliding-window.ts";

// The shared Redis of the test machine (never flushed): every key here is under a fresh prefix.
const redis = new Redis(process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379", { maxRetriesPerRequest: 2 });
const prefix = `mp:test:${randomBytes(6).toString("hex")}:`;
after(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

let created = 0;
const stores: [string, () => SlidingWindowStore][] = [
  ["memory", createMemoryWindowStore],
  // A fresh prefix per store, like a fresh memory store: no test sees another's keys.
  ["Redis", () => createRedisWindowStore(redis, `${prefix}${created++}:`)],
];

for (const [name, create] of stores) {
  describe(`window store reservations (${name})`, () => {
    it("reserves like a hit, refusing at the limit with no member", async () => {
      const store = create();
      const first = await store.reserve("k", 2, 60_000, 1000);
      const second = await store.reserve("k", 2, 60_000, 1001);
      assert.equal(first.allowed && second.allowed, true);
      assert.equal(second.count, 2);
      assert.equal(typeof first.member, "string");
      assert.notEqual(first.member, second.member);
      const refused = await store.reserve("k", 2, 60_000, 1002);
      assert.deepEqual(refused, { allowed: false, count: 2, oldestMs: 1000, roomAtMs: 1000, member: null });
      assert.equal(
        (await store.hit("k", 2, 60_000, 1003)).allowed,
        false,
        "hits and reservations count together",
      );
    });

    it("releases exactly the reserved entry, even beside others of the same millisecond", async () => {
      const store = create();
      const a = await store.reserve("k", 5, 60_000, 1000);
      const b = await store.reserve("k", 5, 60_000, 1000);
      await store.hit("k", 5, 60_000, 2000);
      await store.release("k", b.member!);
      assert.deepEqual(await store.peek("k", 60_000, 2000), { count: 2, oldestMs: 1000 });
      await store.release("k", b.member!);
      assert.equal((await store.peek("k", 60_000, 2000)).count, 2, "a second release is nothing");
      await store.release("k", a.member!);
      assert.deepEqual(await store.peek("k", 60_000, 2000), { count: 1, oldestMs: 2000 });
      // A released slot is free again.
      for (let i = 0; i < 4; i++) assert.equal((await store.reserve("k", 5, 60_000, 3000)).allowed, true);
      assert.equal((await store.reserve("k", 5, 60_000, 3000)).allowed, false);
    });

    it("does nothing for a member that is unknown, cleared or of another key", async () => {
      const store = create();
      const a = await store.reserve("a", 5, 60_000, 1000);
      await store.reserve("b", 5, 60_000, 1000);
      await store.release("b", a.member!);
      await store.release("b", "not-a-member");
      await store.release("nothing-here", a.member!);
      assert.equal((await store.peek("b", 60_000, 1000)).count, 1);
      await store.clear("a");
      const later = await store.reserve("a", 5, 60_000, 1000);
      await store.release("a", a.member!);
      assert.equal((await store.peek("a", 60_000, 1000)).count, 1, "a cleared reservation takes no other");
      await store.release("a", later.member!);
      assert.equal((await store.peek("a", 60_000, 1000)).count, 0);
    });

    it("lets a burst of concurrent reservations take exactly the limit", async () => {
      const store = create();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store.reserve("burst", 7, 60_000, 5000)),
      );
      assert.equal(results.filter((r) => r.allowed).length, 7);
      assert.equal(new Set(results.map((r) => r.member).filter(Boolean)).size, 7);
    });
  });
}
