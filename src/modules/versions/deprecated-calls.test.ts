import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createDeprecatedCallCounter, type DeprecatedCall } from "./deprecated-calls.ts";

describe("deprecated calls: counted in memory, written in batches", () => {
  it("sums the calls of one app, version, operation and day; one write per flush", async () => {
    const writes: DeprecatedCall[][] = [];
    const counter = createDeprecatedCallCounter({ write: async (calls) => void writes.push(calls) });
    const t = (s: number) => new Date(Date.UTC(2027, 3, 1, 12, 0, s));
    for (let i = 0; i < 5; i++) counter.count("app_a", "2026-11-28", "adminListProducts", "version", t(i));
    counter.count("app_a", "2026-11-28", "adminGetProduct", "version", t(9));
    counter.count("app_b", "2026-11-28", "adminListProducts", "version", t(3));
    assert.equal(writes.length, 0, "nothing written per call");
    await counter.flush();
    assert.equal(writes.length, 1);
    const byKey = Object.fromEntries(writes[0]!.map((c) => [`${c.appId} ${c.operationId}`, c]));
    assert.equal(byKey["app_a adminListProducts"]!.calls, 5);
    assert.equal(byKey["app_a adminListProducts"]!.lastAt.getTime(), t(4).getTime());
    assert.equal(byKey["app_a adminListProducts"]!.day, "2027-04-01");
    assert.equal(byKey["app_b adminListProducts"]!.calls, 1);
    await counter.flush();
    assert.equal(writes.length, 1, "an empty flush writes nothing");
  });

  it("keeps what a failed write held for the next flush", async () => {
    let fail = true;
    const written: DeprecatedCall[] = [];
    const counter = createDeprecatedCallCounter({
      write: async (calls) => {
        if (fail) throw new Error("database down");
        written.push(...calls);
      },
    });
    const at = new Date("2027-04-01T12:00:00Z");
    counter.count("app_a", "2026-11-28", "adminListProducts", "version", at);
    await counter.flush();
    counter.count("app_a", "2026-11-28", "adminListProducts", "version", at);
    fail = false;
    await counter.flush();
    assert.deepEqual(
      written.map((c) => c.calls),
      [2],
    );
  });
});
