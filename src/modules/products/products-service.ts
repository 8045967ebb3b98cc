import { EVENT, ProductStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { Product, ProductUpdate, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { toMinorUnits } from "../../lib/money.ts";
import {
  assertPageWindow,
  type ExportWindow,
  finishPage,
  type PageQuery,
  planPage,
} from "../../lib/pagination.ts";
import { mergeMetadata, type Viewer } from "../app-metadata/app-metadata.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import type { ProductRepo } from "./products-repo.ts";
import {
  type CreateProductInput,
  PRODUCT_SORTS,
  toProductResource,
  type UpdateProductInput,
} from "./products-schemas.ts";

type ProductTopic = typeof EVENT.productCreated | typeof EVENT.productUpdated | typeof EVENT.productDeleted;

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

/**
 * Catalogue rules shared by the dashboard, the Admin API and the developer API. Every write emits
 * its event. A price is turned into minor units in the store's currency as the write's transaction
 * reads it (and holds it: a currency change waits for the write, stores-service.ts), never in the
 * currency a request's cached store says.
 */
export function createProductService(deps: {
  db: Db;
  repo: ProductRepo;
  stores: Pick<StoreRepo, "currencyForWrite">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  const recordChange = (
    tx: Executor,
    store: Store,
    product: Product,
    currency: string,
    topic: ProductTopic,
  ) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic,
      resourceId: product.id,
      payload: toProductResource(product, currency),
      appMetadata: product.metadata,
    });

  return {
    async create(store: Store, input: CreateProductInput, viewer?: Viewer) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const priceMinor = priceOrThrow(input.price, currency);
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
            metadata: jsonb(viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {}),
          },
          tx,
        );
        await recordChange(tx, store, product, currency, EVENT.productCreated);
        return toProductResource(product, currency, viewer);
      });
    },

    async update(store: Store, id: string, input: UpdateProductInput, viewer?: Viewer) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const changes: ProductUpdate = {};
        if (input.title !== undefined) changes.title = input.title.trim();
        if (input.description !== undefined) changes.description = input.description;
        if (input.price !== undefined) changes.price_minor = priceOrThrow(input.price, currency);
        if (input.sku !== undefined) changes.sku = input.sku;
        if (input.stock !== undefined) changes.stock = input.stock;
        if (input.status !== undefined) changes.status = input.status;
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Product");
        if (input.sku && input.sku !== current.sku) {
          const other = await repo.findSku(store.id, input.sku, tx);
          if (other && other.id !== id) throw skuTaken();
        }
        let changed = (Object.keys(changes) as Array<keyof ProductUpdate>).some(
          (k) => changes[k] !== current[k],
        );
        if (viewer && input.metadata !== undefined) {
          const merged = mergeMetadata(current.metadata, viewer.appId, input.metadata);
          if (merged.changed) {
            changes.metadata = jsonb(merged.metadata);
            changed = true;
          }
        }
        // A PATCH that changes nothing is answered with the product as is, and emits no event.
        if (!changed) return toProductResource(current, currency, viewer);
        const product = await repo.update(store.id, id, { ...changes, updated_at: deps.clock.now() }, tx);
        if (!product) throw notFound("Product");
        await recordChange(tx, store, product, currency, EVENT.productUpdated);
        return toProductResource(product, currency, viewer);
      });
    },

    async remove(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const product = await repo.delete(store.id, id, tx);
        if (!product) throw notFound("Product");
        await recordChange(tx, store, product, currency, EVENT.productDeleted);
        return toProductResource(product, currency);
      });
    },

    async get(store: Store, id: string, viewer?: Viewer) {
      const product = await repo.find(store.id, id);
      if (!product) throw notFound("Product");
      return toProductResource(product, store.currency, viewer);
    },

    async list(
      store: Store,
      query: PageQuery & { status?: Product["status"] | undefined; q?: string | undefined },
      viewer?: Viewer,
    ) {
      const filter = { status: query.status, q: query.q?.trim() };
      const plan = planPage(query, PRODUCT_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      return {
        items: page.items.map((p) => toProductResource(p, store.currency, viewer)),
        meta: page.meta,
      };
    },

    /** A bulk export's batch (modules/exports), each product exactly as `list` shows it to `viewer`. */
    async exportBatch(store: Store, window: ExportWindow, viewer?: Viewer) {
      const rows = await repo.exportBatch(store.id, window);
      return rows.map((p) => toProductResource(p, store.currency, viewer));
    },

    /** The developer API's offset pages; refuses a page that ends past the first PAGE_WINDOW products. */
    async listByPage(store: Store, page: number, perPage: number) {
      assertPageWindow(page, perPage, "products");
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
