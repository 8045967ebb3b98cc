import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateSchemaTypes, OverrideError, SCHEMA_FILE } from "../scripts/db-types.ts";
import { COLUMN_TYPES, ROW_TYPES } from "../src/db/schema-overrides.ts";
import { createTestContext, TEST_DATABASE_URL, type TestContext } from "./harness.ts";

/**
 * The row types (src/db/schema.ts) are generated from a migrated database: `npm run db:types:check`
 * (CI) compares the committed file with what the embedded database gives; this file compares it
 * with what this run's database gives, so with TEST_DATABASE_URL the generator is held to the same
 * output on PostgreSQL, in a test context's own schema.
 */
describe("the generated row types", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx?.close());

  it(`are what the generator writes from ${TEST_DATABASE_URL ? "PostgreSQL" : "the embedded database"}`, async () => {
    const committed = readFileSync(join(import.meta.dirname, "..", SCHEMA_FILE), "utf8");
    assert.equal(
      await generateSchemaTypes(ctx.platform.db),
      committed,
      `${SCHEMA_FILE} is stale: run npm run db:types`,
    );
  });

  it("are not written when an override names a column no table has, or a jsonb column has none", async () => {
    const { "stores.address": _, ...withoutAddress } = COLUMN_TYPES;
    await assert.rejects(
      generateSchemaTypes(ctx.platform.db, {
        columnTypes: { ...withoutAddress, "products.weight": "number" },
        rowTypes: { ...ROW_TYPES, Wishlist: "wishlists" },
      }),
      (error: unknown) => {
        assert.ok(error instanceof OverrideError);
        assert.match(error.message, /COLUMN_TYPES names products\.weight, which no table has/);
        assert.match(error.message, /stores\.address is jsonb: give its shape/);
        assert.match(error.message, /ROW_TYPES\.Wishlist names table wishlists/);
        return true;
      },
    );
  });
});
