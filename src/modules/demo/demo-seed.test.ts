import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startOfLocalDay } from "../../lib/local-day.ts";
import { DEMO_HISTORY_DAYS, DEMO_ORDERS, DEMO_TIME_ZONE, orderTimes, seededRandom } from "./demo-seed.ts";

describe("the demo's order times", () => {
  it("put orders in the store's today at any time of day, and none after now", () => {
    for (const iso of [
      "2026-11-30T05:00:01Z", // 00:00:01 in New York: a second of today
      "2026-11-30T05:20:00Z", // 00:20: the failure a loaded CI run met (0 orders today)
      "2026-11-30T05:54:00Z",
      "2026-11-30T17:00:00Z", // noon
      "2026-12-01T04:59:00Z", // 23:59
      "2026-03-08T07:30:00Z", // 03:30 EDT on the day the clocks go forward
      "2026-11-01T05:10:00Z", // 01:10 EST on the day they go back
    ]) {
      const now = Date.parse(iso);
      const start = now - DEMO_HISTORY_DAYS * 86_400_000;
      const times = orderTimes(seededRandom(7), DEMO_ORDERS, start, now, DEMO_TIME_ZONE);
      const midnight = startOfLocalDay(now, DEMO_TIME_ZONE);
      assert.equal(times.length, DEMO_ORDERS);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        iso,
      );
      assert.ok(times.at(-1)! <= now, iso);
      assert.ok(times.filter((t) => t >= midnight).length >= 4, `${iso}: orders today`);
      assert.ok(times[0]! >= start, iso);
    }
  });
});
