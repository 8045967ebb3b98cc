import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { randomBase62 } from "./crypto.ts";

describe("randomBase62", () => {
  it("gives the length asked for, in the base62 alphabet, never the same twice across the pool's refills", () => {
    const seen = new Set<string>();
    // 2,000 ids of 22 characters draw ~47,000 bytes: the 4 KiB pool is refilled about 11 times.
    for (let i = 0; i < 2000; i++) {
      const id = randomBase62(22);
      assert.match(id, /^[0-9A-Za-z]{22}$/);
      seen.add(id);
    }
    assert.equal(seen.size, 2000);
    assert.equal(randomBase62(0), "");
    assert.match(randomBase62(5000), /^[0-9A-Za-z]{5000}$/, "longer than the pool");
  });

  it("draws every character equally often (rejection sampling keeps the first ones unbiased)", () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(620_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // 10,000 expected each, standard deviation ~99: ±800 is eight of them. Without the rejection
    // (byte % 62 over all 256 values), '0'-'7' would come out ~12,100 times.
    for (const [c, n] of counts) assert.ok(Math.abs(n - 10_000) < 800, `${c}: ${n}`);
  });
});
