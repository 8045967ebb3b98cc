import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import { createImportRepo, LostClaim } from "../src/modules/imports/imports-repo.ts";
import { text } from "./api-client.ts";
import { createTestContext, errorCode, merchantWithStore, outbox, type TestContext } from "./harness.ts";

const PRODUCTS_CSV = [
  "Handle,Title,Vendor,Tags,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Notes",
  'linen-shirt,Linen shirt,Nordic Linen,"summer, linen",Size,S,LIN-S,49.00,5,ignored',
  "linen-shirt,,,,,M,LIN-M,49.00,3,",
  "=HYPERLINK(1),Mug,,,,,MUG-1,12.5,10,",
  "bad-price,Broken,,,,,BRK-1,12.345,1,",
  ",No handle,,,,,NH-1,1.00,1,",
  "dup,Duplicate SKU,,,,,LIN-S,2.00,1,",
].join("\r\n");

describe("CSV import and export in the dashboard", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it("checks a products file (per-row errors, nothing written), dry-runs it, runs it once, and a re-run creates nothing twice", async () => {
    const m = await merchantWithStore(ctx.app);
    const path = { params: { path: { slug: m.slug } } };
    const up = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/products", {
      ...path,
      body: { fileName: "catalogue.csv", csv: PRODUCTS_CSV },
    });
    assert.equal(up.response.status, 201, text(up));
    const checked = up.data!.data;
    assert.equal(checked.status, "previewed");
    assert.equal(checked.totalRows, 6);
    assert.deepEqual(checked.preview.ignoredColumns, ["Notes"]);
    const errs = checked.errors.map((e) => `${e.row}:${e.column}`);
    assert.ok(errs.includes("5:Variant Price"), JSON.stringify(checked.errors));
    assert.ok(errs.includes("6:Handle"), JSON.stringify(checked.errors));
    assert.ok(errs.includes("7:Variant SKU"), JSON.stringify(checked.errors));
    assert.equal(
      checked.errors.find((e) => e.row === 5)!.message,
      '"12.345" is not an amount in USD: at most 2 decimals',
    );
    // The formula guard written by an export is read back as the text it was.
    assert.equal(checked.preview.rows[2]!.cells[0], "=HYPERLINK(1)");
    const list = () => m.client.GET("/api/v1/dashboard/stores/{slug}/products", path);
    assert.equal((await list()).data!.data.length, 0, "an upload writes nothing");

    const run = (id: string, dryRun: boolean) =>
      m.client.POST("/api/v1/dashboard/stores/{slug}/imports/products/{id}/run", {
        params: { path: { slug: m.slug, id } },
        body: { dryRun },
      });
    const get = async (id: string) =>
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/imports/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).data!.data;

    const otherKind = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", {
      params: { path: { slug: m.slug, id: checked.id } },
      body: { dryRun: true },
    });
    assert.equal(otherKind.response.status, 404, "a products import is not run under the customers' scope");
    const before = (await outbox(ctx.platform, m.store.id)).length;
    const dry = await run(checked.id, true);
    assert.equal(dry.response.status, 202, text(dry));
    assert.equal(dry.data!.data.status, "queued");
    const again = await run(checked.id, true);
    assert.equal(again.response.status, 409, "a run already queued is not queued twice");
    assert.equal(await ctx.platform.imports.work(), true);
    const dried = await get(checked.id);
    assert.equal(dried.status, "completed");
    assert.equal(dried.dryRun, true);
    assert.equal(dried.created, 2);
    assert.equal(dried.doneItems, dried.totalItems);
    assert.equal((await list()).data!.data.length, 0, "a dry run writes nothing");
    assert.equal((await outbox(ctx.platform, m.store.id)).length, before, "nor any event");

    assert.equal((await run(checked.id, false)).response.status, 202);
    assert.equal(await ctx.platform.imports.work(), true);
    const done = await get(checked.id);
    assert.equal(done.status, "completed");
    assert.equal(done.created, 2);
    const products = (await list()).data!.data;
    assert.deepEqual(products.map((p) => p.title).sort(), ["Linen shirt", "Mug"]);
    const shirt = products.find((p) => p.title === "Linen shirt")!;
    assert.deepEqual(
      shirt.variants.map((v) => [v.sku, v.price, v.available]),
      [
        ["LIN-S", "49.00", 5],
        ["LIN-M", "49.00", 3],
      ],
    );
    assert.deepEqual(shirt.tags, ["summer", "linen"]);
    const events = (await outbox(ctx.platform, m.store.id)).map((e) => e.topic);
    assert.equal(events.filter((t) => t === "product.created").length, 2, JSON.stringify(events));

    // The same file again: everything already there is skipped.
    assert.equal((await run(checked.id, false)).response.status, 202);
    await ctx.platform.imports.work();
    const rerun = await get(checked.id);
    assert.equal(rerun.created, 0);
    assert.equal(rerun.skipped, 2);
    assert.equal((await list()).data!.data.length, 2);
  });

  it("imports customers matched by e-mail, and another store's import is 404", async () => {
    const m = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const csv = [
      "Email,First Name,Last Name,Tax Exempt,Address Line 1,Address City,Address Country",
      "ada@example.com,Ada,Lovelace,no,1 Main St,London,gb",
      "ADA@example.com,Ada,Again,,,,",
      "not-an-email,Bob,,,,,",
      "cy@example.com,Cy,,maybe,,,",
    ].join("\n");
    const up = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers", {
      params: { path: { slug: m.slug } },
      body: { fileName: "customers.csv", csv },
    });
    assert.equal(up.response.status, 201, text(up));
    const errs = up.data!.data.errors.map((e) => `${e.row}:${e.column}`);
    assert.deepEqual(errs, ["3:Email", "4:Email", "5:Tax Exempt"]);
    const id = up.data!.data.id;
    const stranger = await other.client.GET("/api/v1/dashboard/stores/{slug}/imports/{id}", {
      params: { path: { slug: other.slug, id } },
    });
    assert.equal(stranger.response.status, 404);
    const foreignRun = await other.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", {
      params: { path: { slug: other.slug, id } },
      body: { dryRun: false },
    });
    assert.equal(errorCode(foreignRun), "NOT_FOUND");
    await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", {
      params: { path: { slug: m.slug, id } },
      body: { dryRun: false },
    });
    await ctx.platform.imports.work();
    const customers = await m.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
    });
    assert.deepEqual(
      customers.data!.data.map((c) => [c.email, c.defaultAddress?.country ?? null]),
      [["ada@example.com", "GB"]],
    );
  });

  it("shows progress batch by batch, and a run whose worker stopped goes on from its last batch after the lease, nothing twice", async () => {
    const m = await merchantWithStore(ctx.app);
    const rows = Array.from({ length: 120 }, (_, i) => `c${i}@example.com,Customer ${i}`);
    const up = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers", {
      params: { path: { slug: m.slug } },
      body: { fileName: "many.csv", csv: ["Email,First Name", ...rows].join("\n") },
    });
    const id = up.data!.data.id;
    const get = async () =>
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/imports/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).data!.data;
    await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", {
      params: { path: { slug: m.slug, id } },
      body: { dryRun: false },
    });
    // A worker that stops after its first batch (a shutdown, or a crash just after the commit).
    assert.equal(await ctx.platform.imports.work({ afterBatch: () => true }), true);
    const midway = await get();
    assert.equal(midway.status, "running");
    assert.equal(midway.doneItems, 50);
    assert.equal(midway.created, 50);
    // Its lease holds: no other worker takes the run yet.
    assert.equal(await ctx.platform.imports.work(), false);
    ctx.clock.advance(61_000);
    assert.equal(await ctx.platform.imports.work(), true);
    const done = await get();
    assert.equal(done.status, "completed");
    assert.equal(done.doneItems, 120);
    assert.equal(done.created, 120);
    const count = await ctx.platform.db
      .selectFrom("customers")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("store_id", "=", m.store.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 120);
  });

  it("gives a queued run to one claimer only, and a worker whose lease was taken over writes nothing", async () => {
    const m = await merchantWithStore(ctx.app);
    const up = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers", {
      params: { path: { slug: m.slug } },
      body: { fileName: "one.csv", csv: "Email,First Name\nsolo@example.com,Solo" },
    });
    const id = up.data!.data.id;
    await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", {
      params: { path: { slug: m.slug, id } },
      body: { dryRun: false },
    });
    const repo = createImportRepo(ctx.platform.db);
    const now = ctx.clock.now();
    const claims = await Promise.all(Array.from({ length: 5 }, () => repo.claim(now, 60_000)));
    const won = claims.filter((c) => c !== undefined);
    assert.equal(won.length, 1, "one claimer takes the run");
    ctx.clock.advance(61_000);
    const second = await repo.claim(ctx.clock.now(), 60_000);
    assert.ok(second, "a lapsed lease is taken over");
    await assert.rejects(
      ctx.platform.db.transaction().execute((tx) =>
        repo.saveProgress(tx, won[0]!, {
          done: 1,
          created: 1,
          skipped: 0,
          errorCount: 0,
          errors: [],
          leaseUntil: ctx.clock.now(),
          now: ctx.clock.now(),
        }),
      ),
      LostClaim,
    );
    await repo.finish(second, { status: "completed", now: ctx.clock.now() });
    assert.equal((await repo.find(m.store.id, id))!.status, "completed");
  });

  it("refuses files past a bound or without the required columns with a 400 naming it", async () => {
    const m = await merchantWithStore(ctx.app);
    const post = (csv: string) =>
      m.client.POST("/api/v1/dashboard/stores/{slug}/imports/customers", {
        params: { path: { slug: m.slug } },
        body: { fileName: "x.csv", csv },
      });
    for (const [csv, words] of [
      ["Name,Phone\nx,y", /Email/],
      ['Email,First Name\n"unclosed,x', /not readable CSV/],
      [`${Array.from({ length: 61 }, (_, i) => `c${i}`).join(",")}\n1`, /at most 60/],
      [`Email,First Name\n${"a@b.co,A\n".repeat(20_001)}`, /more than 20,000 rows/],
    ] as const) {
      const res = await post(csv);
      assert.equal(res.response.status, 400, text(res));
      assert.match(text(res), words);
    }
  });

  it("downloads products, customers and orders as CSV through the bulk export, formulas guarded", async () => {
    const m = await merchantWithStore(ctx.app);
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: { title: "=cmd|' /C calc'!A0", variants: [{ price: "5.00", sku: "F-1", inventoryQuantity: 2 }] },
    });
    const products = await m.client.GET("/api/v1/dashboard/stores/{slug}/export/products.csv", {
      params: { path: { slug: m.slug } },
      parseAs: "text",
    });
    assert.equal(products.response.status, 200, text(products));
    const body = text(products);
    const rows = parse(body) as string[][];
    assert.equal(rows[0]![0], "Handle");
    assert.equal(rows[1]![1], "'=cmd|' /C calc'!A0");
    assert.equal(rows[1]![13], "F-1");
    const customers = await m.client.GET("/api/v1/dashboard/stores/{slug}/export/customers.csv", {
      params: { path: { slug: m.slug } },
      parseAs: "text",
    });
    assert.equal(customers.response.status, 200);
    assert.match(
      customers.response.headers.get("content-disposition") ?? "",
      /attachment; filename=".*-customers-/,
    );
    assert.equal(
      text(customers).split("\r\n")[0],
      "Email,First Name,Last Name,Phone,Tags,Note,Tax Exempt,Address Name,Address Company,Address Line 1,Address Line 2,Address City,Address Region,Address Postal Code,Address Country,Address Phone",
    );
    const orders = await m.client.GET("/api/v1/dashboard/stores/{slug}/export/orders.csv", {
      params: { path: { slug: m.slug } },
      parseAs: "text",
    });
    assert.equal(orders.response.status, 200);
    assert.match(text(orders), /^Order,Order ID,/);

    // The exported file imports as it is: its product is already there, so it is skipped.
    const up = await m.client.POST("/api/v1/dashboard/stores/{slug}/imports/products", {
      params: { path: { slug: m.slug } },
      body: { fileName: "export.csv", csv: body },
    });
    assert.equal(up.response.status, 201, text(up));
    assert.deepEqual(up.data!.data.errors, []);
    assert.equal(up.data!.data.preview.existingItems, 1);
  });
});
