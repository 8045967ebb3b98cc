import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "./errors.ts";
import {
  CREATED_AND_UPDATED,
  containsPattern,
  DEFAULT_SORT,
  encodeCursor,
  planPage,
  type SortTable,
} from "./pagination.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64url");
const SORTS = {
  ...CREATED_AND_UPDATED,
  title: { column: "title", type: "text" },
  stock: { column: "stock", type: "number" },
} as const satisfies SortTable;
const invalid = (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED";

describe("pagination cursors", () => {
  it("round-trips a cursor of the same sort and search, for time, text and number keys", () => {
    const t = new Date("2026-11-22T10:00:00.000Z");
    const first = planPage({ limit: 5 }, SORTS);
    assert.equal(first.sort, DEFAULT_SORT);
    assert.equal(first.direction, "desc");
    assert.deepEqual(planPage({ limit: 5, cursor: encodeCursor(first, t, "a") }, SORTS).after, {
      v: t,
      id: "a",
    });
    const byTitle = planPage({ limit: 5, sort: "title" }, SORTS, { q: "shirt" });
    assert.equal(byTitle.direction, "asc");
    const next = planPage({ limit: 5, sort: "title", cursor: encodeCursor(byTitle, "Linen", "b") }, SORTS, {
      q: "shirt",
    });
    assert.deepEqual(next.after, { v: "Linen", id: "b" });
    const byStock = planPage({ limit: 5, sort: "-stock" }, SORTS);
    assert.deepEqual(
      planPage({ limit: 5, sort: "-stock", cursor: encodeCursor(byStock, 7, "c") }, SORTS).after,
      {
        v: 7,
        id: "c",
      },
    );
  });

  it("refuses a cursor of another sort or another search (400), and cursors from before sorting still work", () => {
    const byTitle = planPage({ limit: 5, sort: "title" }, SORTS, { q: "shirt" });
    const cursor = encodeCursor(byTitle, "Linen", "b");
    assert.throws(() => planPage({ limit: 5, sort: "-title", cursor }, SORTS, { q: "shirt" }), invalid);
    assert.throws(() => planPage({ limit: 5, sort: "title", cursor }, SORTS, { q: "linen" }), invalid);
    assert.throws(() => planPage({ limit: 5, sort: "title", cursor }, SORTS), invalid);
    // The format before sorts: ["c", ms, id] newest first, ["u", ms, id] with updatedSince.
    assert.deepEqual(planPage({ limit: 5, cursor: b64('["c",1000,"x"]') }, SORTS).after, {
      v: new Date(1000),
      id: "x",
    });
    const since = "2026-01-01T00:00:00.000Z";
    assert.deepEqual(
      planPage({ limit: 5, updatedSince: since, cursor: b64('["u",1000,"x"]') }, SORTS).after,
      {
        v: new Date(1000),
        id: "x",
      },
    );
    assert.throws(
      () => planPage({ limit: 5, cursor: b64('["c",1000,"x"]') }, SORTS, { q: "shirt" }),
      invalid,
    );
  });

  it("refuses anything else with VALIDATION_FAILED, before it can reach SQL", () => {
    for (const junk of [
      "junk",
      b64("{}"),
      b64('["c",1,"x","extra"]'),
      b64('["c",1.5,"x"]'),
      b64('["c",1,42]'),
      b64(`["c",1,"${"i".repeat(65)}"]`),
      // Safe integers outside the Date range (±8.64e15 ms) would reach the query as NaN.
      b64('["c",-8640000000000001,"x"]'),
      b64('["-createdAt",9007199254740991,"x",""]'),
      b64('["-createdAt","yesterday","x",""]'),
      // Dates outside years 1-9999: the embedded database refuses them from JavaScript (a 500).
      b64('["c",-62135596800001,"x"]'),
      b64('["-createdAt",253402300800000,"x",""]'),
      b64('["u",1,"x"]'),
    ]) {
      assert.throws(() => planPage({ limit: 5, cursor: junk }, SORTS), invalid, junk);
    }
  });

  it("lists changes oldest first with updatedSince; another sort with it is a 400", () => {
    const since = "2026-01-01T00:00:00.000Z";
    const plan = planPage({ limit: 5, updatedSince: since }, SORTS);
    assert.equal(plan.sort, "updatedAt");
    assert.equal(plan.direction, "asc");
    assert.equal(planPage({ limit: 5, updatedSince: since, sort: "updatedAt" }, SORTS).sort, "updatedAt");
    assert.throws(() => planPage({ limit: 5, updatedSince: since, sort: "title" }, SORTS), invalid);
    assert.throws(() => planPage({ limit: 5, sort: "price" }, SORTS), invalid);
    for (const outside of ["0000-12-31T23:59:59Z", "9999-12-31T23:59:59-23:59", "yesterday"])
      assert.throws(() => planPage({ limit: 5, updatedSince: outside }, SORTS), invalid, outside);
    assert.deepEqual(
      planPage({ limit: 5, cursor: b64('["c",-62135596800000,"x"]') }, SORTS).after?.v,
      new Date("0001-01-01T00:00:00Z"),
    );
  });

  it("makes a search text a literal LIKE pattern", () => {
    assert.equal(containsPattern("  50%_off\\ "), "%50\\%\\_off\\\\%");
  });
});
