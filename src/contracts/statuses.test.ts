import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canTransition, ORDER_STATUS_NAMES as ORDER_STATUSES } from "./statuses.ts";

describe("order status machine", () => {
  it("moves forward one step at a time", () => {
    assert.ok(canTransition("pending", "paid"));
    assert.ok(canTransition("paid", "confirmed"));
    assert.ok(canTransition("confirmed", "shipped"));
    assert.ok(canTransition("shipped", "delivered"));
    assert.ok(!canTransition("pending", "confirmed"));
    assert.ok(!canTransition("paid", "delivered"));
    assert.ok(!canTransition("delivered", "shipped"));
  });

  it("cancels only before shipping", () => {
    for (const from of ["pending", "paid", "confirmed"] as const) assert.ok(canTransition(from, "cancelled"));
    for (const from of ["shipped", "delivered", "cancelled"] as const)
      assert.ok(!canTransition(from, "cancelled"));
  });

  it("has final states and never a self-loop", () => {
    for (const s of ORDER_STATUSES) assert.ok(!canTransition(s, s));
    for (const to of ORDER_STATUSES) {
      assert.ok(!canTransition("delivered", to));
      assert.ok(!canTransition("cancelled", to));
    }
  });
});
