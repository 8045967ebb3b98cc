import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backoffDelayMs } from "./backoff.ts";

describe("backoffDelayMs", () => {
  const middle = { firstMs: 500, maxMs: 15_000, random: () => 0.5 };

  it("doubles from the first delay and stops at the cap", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelayMs(n, middle)),
      [500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000],
    );
  });

  it("spreads delays by at most 20% and never past the cap", () => {
    assert.equal(backoffDelayMs(1, { ...middle, random: () => 0 }), 400);
    assert.equal(backoffDelayMs(1, { ...middle, random: () => 0.999999 }), 600);
    assert.equal(backoffDelayMs(10, { ...middle, random: () => 0.999999 }), 15_000);
  });
});
