import { sql } from "kysely";
import { EVENT, MAX_COLLECTION_PRODUCTS } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { Collection, Product, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import {
  CREATED_AND_UPDATED,
  finishPage,
  keysetPage,
  type PageQuery,
  planPage,
  type SortTable,
} from "../../lib/pagination.ts";
import type { Viewer } from "../app-metadata/app-metadata.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { ImageViews } from "../product-images/product-images-service.ts";
import type { ProductRepo } from "../products/products-repo.ts";
import { toProductResource } from "../products/products-schemas.ts";
import { checkRules, rulesCondition } from "./collection-rules.ts";
import {
  COLLECTION_SORTS,
  type CreateCollectionInput,
  toCollectionResource,
  type UpdateCollectionInput,
} from "./collections-schemas.ts";

type CollectionTopic =
  | typeof EVENT.collectionCreated
  | typeof EVENT.collectionUpdated
  | typeof EVENT.collectionDeleted;

/** The order a manual collection's products are listed in, and an automatic one's (newest first). */
const MANUAL_ORDER = {
  ...CREATED_AND_UPDATED,
  position: { column: "position", type: "number" },
} as const satisfies SortTable;
const AUTOMATIC_ORDER = CREATED_AND_UPDATED;

/**
 * Collections (issue 30): a manual one is the merchant's ordered list of products; an automatic
 * one is the products its rules match (all or any), evaluated when read. A product is in any
 * number of them; deleting a product takes it out of every manual one (by cascade). Every change
 * emits its `collection.*` event. Reads under read_products, writes under write_products.
 */
export function createCollectionService(deps: {
  db: Db;
  products: Pick<ProductRepo, "variantsOf">;
  images: Pick<ImageViews, "imagesOf">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db } = deps;

  async function count(tx: Executor, store: Store, c: Collection): Promise<number> {
    if (c.kind === "manual") {
      const row = await tx
        .selectFrom("collection_products")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("store_id", "=", store.id)
        .where("collection_id", "=", c.id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM products p
       WHERE p.store_id = ${store.id} AND ${rulesCondition(c.rules, c.match ?? "all", store.currency)}`.execute(
      tx,
    );
    return Number(rows[0]?.n ?? 0);
  }

  const find = (tx: Executor, store: Store, id: string, lock = false) => {
    const q = tx.selectFrom("collections").selectAll().where("store_id", "=", store.id).where("id", "=", id);
    return (lock ? q.forUpdate() : q).executeTakeFirst();
  };

  async function record(tx: Executor, store: Store, c: Collection, topic: CollectionTopic) {
    const view = toCollectionResource(c, await count(tx, store, c));
    await deps.recordEvent(tx, { storeId: store.id, topic, resourceId: c.id, payload: view });
    return view;
  }

  /** Replaces a manual collection's products with `ids`, in order (each a product of the store). */
  async function setProducts(tx: Executor, store: Store, collectionId: string, ids: readonly string[]) {
    if (ids.length > 0) {
      const known = await tx
        .selectFrom("products")
        .select("id")
        .where("store_id", "=", store.id)
        .where("id", "in", ids as string[])
        .execute();
      const have = new Set(known.map((k) => k.id));
      const missing = ids.findIndex((id) => !have.has(id));
      if (missing >= 0)
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: `productIds.${missing}`, message: "is not a product of this store" }],
        });
    }
    await tx
      .deleteFrom("collection_products")
      .where("store_id", "=", store.id)
      .where("collection_id", "=", collectionId)
      .execute();
    if (ids.length)
      await tx
        .insertInto("collection_products")
        .values(
          ids.map((productId, position) => ({
            store_id: store.id,
            collection_id: collectionId,
            product_id: productId,
            position,
          })),
        )
        .execute();
  }

  const manualOnly = (field: string) =>
    new AppError("VALIDATION_FAILED", {
      details: [{ field, message: "belongs to a manual collection only" }],
    });
  const automaticOnly = (field: string) =>
    new AppError("VALIDATION_FAILED", {
      details: [{ field, message: "belongs to an automatic collection only" }],
    });

  return {
    async list(store: Store, query: PageQuery) {
      const plan = planPage(query, COLLECTION_SORTS);
      const rows = await keysetPage(
        db.selectFrom("collections").selectAll().where("store_id", "=", store.id),
        plan,
      ).execute();
      const page = finishPage(rows, plan);
      const items = [];
      for (const c of page.items) items.push(toCollectionResource(c, await count(db, store, c)));
      return { items, meta: page.meta };
    },
    async get(store: Store, id: string) {
      const c = await find(db, store, id);
      if (!c) throw notFound("Collection");
      return toCollectionResource(c, await count(db, store, c));
    },
    async create(store: Store, input: CreateCollectionInput) {
      const automatic = input.kind === "automatic";
      if (automatic && !input.rules)
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: "rules", message: "an automatic collection needs at least one rule" }],
        });
      if (automatic && input.productIds) throw manualOnly("productIds");
      if (!automatic && input.rules) throw automaticOnly("rules");
      if (!automatic && input.match) throw automaticOnly("match");
      if (input.rules) checkRules(input.rules, store.currency);
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const c = await tx
          .insertInto("collections")
          .values({
            store_id: store.id,
            id: newId("collection"),
            title: input.title.trim(),
            description: input.description ?? "",
            kind: input.kind,
            match: automatic ? (input.match ?? "all") : null,
            rules: jsonb(input.rules ?? []),
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        if (input.productIds) await setProducts(tx, store, c.id, input.productIds);
        return record(tx, store, c, EVENT.collectionCreated);
      });
    },
    async update(store: Store, id: string, input: UpdateCollectionInput) {
      return db.transaction().execute(async (tx) => {
        const current = await find(tx, store, id, true);
        if (!current) throw notFound("Collection");
        if (current.kind === "manual" && input.rules) throw automaticOnly("rules");
        if (current.kind === "manual" && input.match) throw automaticOnly("match");
        if (input.rules) checkRules(input.rules, store.currency);
        const changes: Partial<Record<string, unknown>> = {};
        if (input.title !== undefined && input.title.trim() !== current.title)
          changes.title = input.title.trim();
        if (input.description !== undefined && input.description !== current.description)
          changes.description = input.description;
        if (input.match !== undefined && input.match !== current.match) changes.match = input.match;
        if (input.rules !== undefined && JSON.stringify(input.rules) !== JSON.stringify(current.rules))
          changes.rules = jsonb(input.rules);
        if (Object.keys(changes).length === 0)
          return toCollectionResource(current, await count(tx, store, current));
        const c = await tx
          .updateTable("collections")
          .set({ ...changes, updated_at: deps.clock.now() })
          .where("store_id", "=", store.id)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return record(tx, store, c, EVENT.collectionUpdated);
      });
    },
    async remove(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const current = await find(tx, store, id, true);
        if (!current) throw notFound("Collection");
        const view = toCollectionResource(current, await count(tx, store, current));
        await tx.deleteFrom("collections").where("store_id", "=", store.id).where("id", "=", id).execute();
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.collectionDeleted,
          resourceId: id,
          payload: view,
        });
        return view;
      });
    },
    /** A manual collection's products, replaced by `productIds` in that order. */
    async setProducts(store: Store, id: string, productIds: readonly string[]) {
      return db.transaction().execute(async (tx) => {
        const current = await find(tx, store, id, true);
        if (!current) throw notFound("Collection");
        if (current.kind !== "manual")
          throw new AppError("CONFLICT", {
            message: "An automatic collection's products are the ones its rules match.",
            details: [{ field: "productIds", message: "the collection is automatic" }],
          });
        if (productIds.length > MAX_COLLECTION_PRODUCTS) throw manualOnly("productIds");
        await setProducts(tx, store, id, productIds);
        const c = await tx
          .updateTable("collections")
          .set({ updated_at: deps.clock.now() })
          .where("store_id", "=", store.id)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return record(tx, store, c, EVENT.collectionUpdated);
      });
    },
    /**
     * Which of `collectionIds` each of `productIds` is in now (a manual one's list, an automatic
     * one's rules), for a discount's entitlement: product id -> collection ids. Collections that
     * are gone are in nothing.
     */
    async membership(
      tx: Executor,
      store: Store,
      collectionIds: readonly string[],
      productIds: readonly string[],
    ): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (collectionIds.length === 0 || productIds.length === 0) return out;
      const add = (productId: string, collectionId: string) =>
        out.set(productId, [...(out.get(productId) ?? []), collectionId]);
      const collections = await tx
        .selectFrom("collections")
        .selectAll()
        .where("store_id", "=", store.id)
        .where("id", "in", collectionIds as string[])
        .execute();
      const manual = collections.filter((c) => c.kind === "manual").map((c) => c.id);
      if (manual.length)
        for (const r of await tx
          .selectFrom("collection_products")
          .select(["product_id", "collection_id"])
          .where("store_id", "=", store.id)
          .where("collection_id", "in", manual)
          .where("product_id", "in", productIds as string[])
          .execute())
          add(r.product_id, r.collection_id);
      for (const c of collections.filter((c) => c.kind === "automatic"))
        for (const r of await tx
          .selectFrom("products as p")
          .select("p.id")
          .where("p.store_id", "=", store.id)
          .where("p.id", "in", productIds as string[])
          .where(rulesCondition(c.rules, c.match ?? "all", store.currency))
          .execute())
          add(r.id, c.id);
      return out;
    },
    /**
     * The collection's products, a page at a time: a manual one's in its order, an automatic
     * one's newest first. Each as the product list shows it to `viewer`.
     */
    async products(
      store: Store,
      id: string,
      query: { limit: number; cursor?: string | undefined },
      viewer?: Viewer,
    ) {
      // A cursor this list never gave is a 400 whatever the collection (a manual one's or an
      // automatic one's, read before the collection is).
      if (query.cursor) {
        try {
          planPage({ ...query, sort: "position" }, MANUAL_ORDER, { collection: id });
        } catch {
          planPage({ ...query, sort: "-createdAt" }, AUTOMATIC_ORDER, { collection: id });
        }
      }
      const c = await find(db, store, id);
      if (!c) throw notFound("Collection");
      let rows: Array<Product & { position?: number }>;
      let plan: ReturnType<typeof planPage>;
      if (c.kind === "manual") {
        plan = planPage({ ...query, sort: "position" }, MANUAL_ORDER, { collection: id });
        let q = db
          .selectFrom("collection_products as cp")
          .innerJoin("products as p", (j) =>
            j.onRef("p.store_id", "=", "cp.store_id").onRef("p.id", "=", "cp.product_id"),
          )
          .selectAll("p")
          .select("cp.position")
          .where("cp.store_id", "=", store.id)
          .where("cp.collection_id", "=", id);
        if (plan.after)
          q = q.where(sql<boolean>`(cp.position, cp.product_id) > (${plan.after.v}, ${plan.after.id})`);
        rows = await q
          .orderBy("cp.position")
          .orderBy("cp.product_id")
          .limit(plan.limit + 1)
          .execute();
      } else {
        plan = planPage({ ...query, sort: "-createdAt" }, AUTOMATIC_ORDER, { collection: id });
        rows = await keysetPage(
          db
            .selectFrom("products as p")
            .selectAll("p")
            .where("p.store_id", "=", store.id)
            .where(rulesCondition(c.rules, c.match ?? "all", store.currency)),
          plan,
          "p",
        ).execute();
      }
      const page = finishPage(rows, plan);
      const ids = page.items.map((p) => p.id);
      const [variants, images] = await Promise.all([
        deps.products.variantsOf(store.id, ids),
        deps.images.imagesOf(store.id, ids),
      ]);
      return {
        items: page.items.map(({ position: _p, ...p }) =>
          toProductResource(
            p as Product,
            variants.get(p.id) ?? [],
            images.get(p.id) ?? [],
            store.currency,
            viewer,
          ),
        ),
        meta: page.meta,
      };
    },
  };
}
export type CollectionService = ReturnType<typeof createCollectionService>;
