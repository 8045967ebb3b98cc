import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../lib/errors.ts";
import { acceptsGzip, decodeSnapshot, encodeSnapshot, startOf, windowOf } from "./export-position.ts";

const NOW = new Date("2026-11-27T10:00:00.000Z");
const field = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return (error.details as Array<{ field: string }>)[0]?.field;
  }
  assert.fail("did not throw");
};

describe("export position", () => {
  it("starts a new export at now, with updatedSince", () => {
    const { snapshot, after } = startOf("products", { updatedSince: "2026-11-01T00:00:00Z" }, NOW);
    assert.equal(after, null);
    assert.equal(snapshot.asOf.getTime(), NOW.getTime());
    assert.equal(snapshot.updatedSince?.toISOString(), "2026-11-01T00:00:00.000Z");
  });

  it("resumes from a snapshot token with its updatedSince, after the given id", () => {
    const token = encodeSnapshot({
      resource: "orders",
      asOf: new Date(NOW.getTime() - 60_000),
      updatedSince: new Date("2026-11-01T00:00:00Z"),
      locationId: null,
    });
    const later = new Date(NOW.getTime() + 3_600_000);
    const { snapshot, after } = startOf("orders", { snapshot: token, after: "ord_x" }, later);
    assert.equal(after, "ord_x");
    assert.equal(snapshot.asOf.getTime(), NOW.getTime() - 60_000);
    assert.equal(snapshot.updatedSince?.toISOString(), "2026-11-01T00:00:00.000Z");
    // The same updatedSince again is fine; another is not.
    startOf("orders", { snapshot: token, updatedSince: "2026-11-01T00:00:00Z" }, later);
    assert.equal(
      field(() => startOf("orders", { snapshot: token, updatedSince: "2026-11-02T00:00:00Z" }, later)),
      "updatedSince",
    );
  });

  it("refuses after without a snapshot, another resource's token, forged and future tokens", () => {
    assert.equal(
      field(() => startOf("products", { after: "prod_x" }, NOW)),
      "after",
    );
    const orders = encodeSnapshot({ resource: "orders", asOf: NOW, updatedSince: null, locationId: null });
    assert.equal(
      field(() => decodeSnapshot(orders, "products", NOW)),
      "snapshot",
    );
    for (const token of [
      "not-base64-json",
      Buffer.from('[2,"products",1,null]').toString("base64url"),
      Buffer.from('[1,"products","x",null]').toString("base64url"),
      Buffer.from('[1,"products",1e20,null]').toString("base64url"),
      Buffer.from('[1,"widgets",1,null]').toString("base64url"),
      // A location belongs only to an inventory export's token.
      Buffer.from('[1,"products",1,null,"loc_x"]').toString("base64url"),
      Buffer.from('[1,"products",1,null,null,null]').toString("base64url"),
      encodeSnapshot({
        resource: "products",
        asOf: new Date(NOW.getTime() + 120_000),
        updatedSince: null,
        locationId: null,
      }),
    ])
      assert.equal(
        field(() => decodeSnapshot(token, "products", NOW)),
        "snapshot",
        token,
      );
  });

  it("carries an inventory export's location in its token; a resume naming another is refused", () => {
    const { snapshot } = startOf("inventory", { locationId: "loc_aaaaaaaaaaaaaaaaaaaaaa" }, NOW);
    const token = encodeSnapshot(snapshot);
    const resumed = startOf("inventory", { snapshot: token, after: "ilvl_aaaaaaaaaaaaaaaaaaaaaa" }, NOW);
    assert.equal(resumed.snapshot.locationId, "loc_aaaaaaaaaaaaaaaaaaaaaa");
    assert.equal(windowOf(resumed.snapshot, resumed.after, 10).locationId, "loc_aaaaaaaaaaaaaaaaaaaaaa");
    assert.equal(
      field(() => startOf("inventory", { snapshot: token, locationId: "loc_bbbbbbbbbbbbbbbbbbbbbb" }, NOW)),
      "locationId",
    );
    // Without a location the token is the same four elements as every other export's.
    const every = encodeSnapshot(startOf("inventory", {}, NOW).snapshot);
    assert.equal(JSON.parse(Buffer.from(every, "base64url").toString()).length, 4);
  });

  it("reads Accept-Encoding with q-values", () => {
    assert.equal(acceptsGzip(undefined), false);
    assert.equal(acceptsGzip("gzip"), true);
    assert.equal(acceptsGzip("br, gzip;q=0.5"), true);
    assert.equal(acceptsGzip("gzip;q=0"), false);
    assert.equal(acceptsGzip("identity"), false);
    assert.equal(acceptsGzip("*"), true);
    assert.equal(acceptsGzip("*;q=0"), false);
    assert.equal(acceptsGzip("gzip;q=0, *"), false);
    assert.equal(acceptsGzip("X-GZIP"), true);
  });
});
