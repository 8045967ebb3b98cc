import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from "kysely";
import { queryShapes } from "./query-shapes.ts";
import type { DB } from "./schema.ts";

// Compiles as the service's PostgreSQL dialect does; nothing is sent anywhere.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Records what would be executed and answers one row naming it. */
function recorder() {
  const sent: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  return {
    sent,
    async executeQuery<T>(query: CompiledQuery<T>) {
      sent.push({ sql: query.sql, parameters: query.parameters });
      return { rows: [{ n: sent.length } as T] };
    },
  };
}

type V = { storeId: string; id: string; status: string | undefined };
const byId = (withStatus: boolean) => (v: V) => {
  let q = db.selectFrom("products").selectAll().where("store_id", "=", v.storeId).where("id", "=", v.id);
  if (withStatus) q = q.where("status", "=", v.status as never);
  return q;
};

describe("queryShapes", () => {
  it("builds a shape once and sends each call's values in Kysely's order", async () => {
    const run = queryShapes();
    const to = recorder();
    let builds = 0;
    const counted = (withStatus: boolean) => (v: V) => {
      builds++;
      return byId(withStatus)(v);
    };
    await run(to, "plain", { storeId: "s1", id: "p1", status: undefined }, counted(false));
    await run(to, "plain", { storeId: "s2", id: "p2", status: undefined }, counted(false));
    await run(to, "status", { storeId: "s3", id: "p3", status: "draft" }, counted(true));
    await run(to, "status", { id: "p4", status: "active", storeId: "s4" }, counted(true));
    assert.equal(builds, 2, "one build per shape");
    assert.deepEqual(to.sent, [
      {
        sql: byId(false)({ storeId: "", id: "", status: undefined }).compile().sql,
        parameters: ["s1", "p1"],
      },
      { sql: to.sent[0]!.sql, parameters: ["s2", "p2"] },
      {
        sql: 'select * from "products" where "store_id" = $1 and "id" = $2 and "status" = $3',
        parameters: ["s3", "p3", "draft"],
      },
      { sql: to.sent[2]!.sql, parameters: ["s4", "p4", "active"] },
    ]);
  });

  it("passes a value used twice in both places", async () => {
    const run = queryShapes();
    const to = recorder();
    const build = (v: { like: string }) =>
      db
        .selectFrom("products")
        .select("id")
        .where((eb) => eb.or([eb("title", "ilike", v.like), eb("description", "ilike", v.like)]));
    await run(to, "search", { like: "%a%" }, build);
    await run(to, "search", { like: "%b%" }, build);
    assert.deepEqual(
      to.sent.map((s) => s.parameters),
      [
        ["%a%", "%a%"],
        ["%b%", "%b%"],
      ],
    );
  });

  it("never reuses a query holding a value that is not one of the call's (built every time instead)", async () => {
    const run = queryShapes();
    const to = recorder();
    // A value computed inside build, and a constant: neither may be frozen into the shape.
    const build = (v: { limit: number }) =>
      db
        .selectFrom("products")
        .select("id")
        .where("status", "=", "active")
        .limit(v.limit + 1);
    await run(to, "derived", { limit: 10 }, build);
    await run(to, "derived", { limit: 20 }, build);
    assert.deepEqual(
      to.sent.map((s) => s.parameters),
      [
        ["active", 11],
        ["active", 21],
      ],
    );
    const upper = (v: { id: string }) =>
      db.selectFrom("products").select("id").where("id", "=", v.id.toUpperCase());
    await run(to, "throws on a placeholder", { id: "x" }, upper);
    await run(to, "throws on a placeholder", { id: "y" }, upper);
    assert.deepEqual(
      to.sent.slice(2).map((s) => s.parameters),
      [["X"], ["Y"]],
    );
  });

  it("keeps at most maxShapes shapes, and answers the others correctly", async () => {
    const run = queryShapes(1);
    const to = recorder();
    await run(to, "a", { storeId: "s1", id: "p1", status: undefined }, byId(false));
    await run(to, "b", { storeId: "s2", id: "p2", status: "draft" }, byId(true));
    await run(to, "b", { storeId: "s3", id: "p3", status: "active" }, byId(true));
    assert.deepEqual(
      to.sent.map((s) => s.parameters),
      [
        ["s1", "p1"],
        ["s2", "p2", "draft"],
        ["s3", "p3", "active"],
      ],
    );
  });
});
