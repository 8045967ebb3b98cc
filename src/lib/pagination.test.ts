import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "./errors.ts";
import { decodeCursor, encodeCursor, planPage } from "./pagination.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64url");

describe("pagination cursors", () => {
  it("round-trips a cursor of the same order", () => {
    const t = new Date("2026-11-22T10:00:00.000Z");
    assert.deepEqual(decodeCursor(encodeCursor("created_desc", t, "prod_x"), "created_desc"), {
      t,
      id: "prod_x",
    });
    assert.deepEqual(planPage({ limit: 5, cursor: encodeCursor("created_desc", t, "a") }).after, {
      t,
      id: "a",
    });
  });

  it("refuses anything else with VALIDATION_FAILED, before it can reach SQL", () => {
    const t = new Date();
    for (const junk of [
      "junk",
      b64("{}"),
      b64('["c",1,"x","extra"]'),
      b64('["c",1.5,"x"]'),
      b64('["c",1,42]'),
      b64(`["c",1,"${"i".repeat(65)}"]`),
      // Safe integers outside the Date range (±8.64e15 ms) would reach the query as NaN.
      b64('["c",-8640000000000001,"x"]'),
      b64('["c",9007199254740991,"x"]'),
      encodeCursor("updated_asc", t, "x"),
    ]) {
      assert.throws(
        () => decodeCursor(junk, "created_desc"),
        (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED",
        junk,
      );
    }
  });
});
