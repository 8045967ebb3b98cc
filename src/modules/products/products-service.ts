import { EVENT, ProductStatus } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { Product, ProductUpdate, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { toMinorUnits } from "../../lib/money.ts";
import { finishPage, type PageQuery, planPage } from "../../lib/pagination.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { ProductRepo } from "./products-repo.ts";
import { PRODUCT_SORTS, toProductResource } from "./products-schemas.ts";

/**
 * How deep the developer API's offset pages reach: page × perPage ≤ PAGE_WINDOW. An OFFSET costs
 * a walk over every row it skips, so without a bound the cost of a page grows with the catalogue;
 * within it, a page costs at most 10,000 index entries (issue 10).
 */
export const PAGE_WINDOW = 10_000;

export interface ProductInput {
  title?: string | undefined;
  description?: string | undefined;
  price?: string | undefined;
  sku?: string | null | undefined;
  stock?: number | undefined;
  status?: Product["status"] | undefined;
}

function priceOrThrow(price: string, currency: string): number {
  const minor = toMinorUnits(price, currency);
  if (minor === null) {
    throw new AppError("VALIDATION_FAILED", {
      details: [{ field: "price", message: `is not a valid amount in ${currency}` }],
    });
  }
  return minor;
}

const skuTaken = () =>
  new AppError("CONFLICT", {
    message: "Another product in this store has this SKU.",
    details: [{ field: "sku", message: "is already used in this store" }],
  });

/** Catalogue rules shared by the dashboard, the Admin API and the developer API. Every write emits its event. */
export function createProductService(deps: {
  db: Db;
  repo: ProductRepo;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  return {
    async create(store: Store, input: ProductInput & { title: string; price: string }) {
      const now = deps.clock.now();
      const priceMinor = priceOrThrow(input.price, store.currency);
      return db.transaction().execute(async (tx) => {
        if (input.sku && (await repo.findSku(store.id, input.sku, tx))) throw skuTaken();
        const product = await repo.insert(
          {
            store_id: store.id,
            id: newId("product"),
            title: input.title.trim(),
            description: input.description ?? "",
            price_minor: priceMinor,
            sku: input.sku ?? null,
            stock: input.stock ?? 0,
            status: input.status ?? ProductStatus.active,
            created_at: now,
            updated_at: now,
          },
          tx,
        );
        const view = toProductResource(product, store.currency);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.productCreated,
          resourceId: product.id,
          payload: view,
        });
        return view;
      });
    },

    async update(store: Store, id: string, input: ProductInput) {
      const changes: ProductUpdate = {};
      if (input.title !== undefined) changes.title = input.title.trim();
      if (input.description !== undefined) changes.description = input.description;
      if (input.price !== undefined) changes.price_minor = priceOrThrow(input.price, store.currency);
      if (input.sku !== undefined) changes.sku = input.sku;
      if (input.stock !== undefined) changes.stock = input.stock;
      if (input.status !== undefined) changes.status = input.status;
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Product");
        if (input.sku && input.sku !== current.sku) {
          const other = await repo.findSku(store.id, input.sku, tx);
          if (other && other.id !== id) throw skuTaken();
        }
        const changed = (Object.keys(changes) as Array<keyof ProductUpdate>).some(
          (k) => changes[k] !== current[k],
        );
        // A PATCH that changes nothing is answered with the product as is, and emits no event.
        if (!changed) return toProductResource(current, store.currency);
        const product = await repo.update(store.id, id, { ...changes, updated_at: deps.clock.now() }, tx);
        if (!product) throw notFound("Product");
        const view = toProductResource(product, store.currency);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.productUpdated,
          resourceId: id,
          payload: view,
        });
        return view;
      });
    },

    async remove(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const product = await repo.delete(store.id, id, tx);
        if (!product) throw notFound("Product");
        const view = toProductResource(product, store.currency);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.productDeleted,
          resourceId: id,
          payload: view,
        });
        return view;
      });
    },

    async get(store: Store, id: string) {
      const product = await repo.find(store.id, id);
      if (!product) throw notFound("Product");
      return toProductResource(product, store.currency);
    },

    async list(
      store: Store,
      query: PageQuery & { status?: Product["status"] | undefined; q?: string | undefined },
    ) {
      const filter = { status: query.status, q: query.q?.trim() };
      const plan = planPage(query, PRODUCT_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      return { items: page.items.map((p) => toProductResource(p, store.currency)), meta: page.meta };
    },

    /** page/perPage listing with totals (developer API contract). */
    /** The developer API's offset pages; refuses a page that ends past the first PAGE_WINDOW products. */
    async listByPage(store: Store, page: number, perPage: number) {
      if (page * perPage > PAGE_WINDOW) {
        throw new AppError("VALIDATION_FAILED", {
          message: `Pages reach only the first ${PAGE_WINDOW.toLocaleString("en")} products, newest first: ask for a page with page × perPage ≤ ${PAGE_WINDOW}.`,
          details: [
            {
              field: "page",
              message: `page × perPage is ${page * perPage}, more than ${PAGE_WINDOW}; the last page for perPage=${perPage} is ${Math.floor(PAGE_WINDOW / perPage)}`,
            },
          ],
        });
      }
      const [total, rows] = await Promise.all([
        repo.count(store.id),
        repo.listPage(store.id, (page - 1) * perPage, perPage),
      ]);
      return {
        items: rows.map((p) => toProductResource(p, store.currency)),
        meta: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
      };
    },
  };
}
export type ProductService = ReturnType<typeof createProductService>;
