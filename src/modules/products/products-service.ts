import { EVENT, MAX_VARIANTS, ProductStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type {
  NewProductVariant,
  Product,
  ProductOptionJson,
  ProductUpdate,
  ProductVariant,
  Store,
  VariantUpdate,
} from "../../db/schema.ts";
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
import { forViewer, mergeMetadata, type Viewer } from "../app-metadata/app-metadata.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { InventoryService, StockActor } from "../inventory/inventory-service.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import type { ImageViews, ProductImageView } from "../product-images/product-images-service.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import { CATALOGUE_VERSION } from "../versions/changes/2026-11-29-catalogue.ts";
import {
  checkOptions,
  checkVariantValues,
  combinationKey,
  planOptions,
  variantTitle,
  withValues,
} from "./product-options.ts";
import type { ProductRepo } from "./products-repo.ts";
import {
  type CreateProductInput,
  PRODUCT_SORTS,
  type ProductListFilter,
  toProductResource,
  toVariantResource,
  type UpdateProductInput,
  type UpdateVariantInput,
  type VariantInputValue,
  valuesOf,
} from "./products-schemas.ts";

type ProductTopic = typeof EVENT.productCreated | typeof EVENT.productUpdated | typeof EVENT.productDeleted;

function minorOrThrow(amount: string, currency: string, field: string): number {
  const minor = toMinorUnits(amount, currency);
  if (minor === null) {
    throw new AppError("VALIDATION_FAILED", {
      details: [{ field, message: `is not a valid amount in ${currency}` }],
    });
  }
  return minor;
}

const skuTaken = (field: string) =>
  new AppError("CONFLICT", {
    message: "Another variant in this store has this SKU.",
    details: [{ field, message: "is already used in this store" }],
  });

/** The option1..3 columns of a combination. */
const optionColumns = (values: readonly string[]) => ({
  option1: values[0] ?? null,
  option2: values[1] ?? null,
  option3: values[2] ?? null,
  title: variantTitle(values),
});

/**
 * Catalogue rules shared by the dashboard, the Admin API and the developer API (issue 30): a
 * product, its options and its variants are written together under the product's row lock, which
 * every stock writer takes first too (inventory-service.ts), so the product's figures (lowest and
 * highest price, what can be sold) are refreshed from its variants in the same transaction. Every
 * write emits its event. A price is turned into minor units in the store's currency as the write's
 * transaction reads it (and holds it: a currency change waits for the write, stores-service.ts).
 */
export function createProductService(deps: {
  db: Db;
  repo: ProductRepo;
  stores: Pick<StoreRepo, "currencyForWrite">;
  locations: Pick<LocationRepo, "forOrders" | "list">;
  inventory: Pick<InventoryService, "apply" | "initialStock">;
  recordEvent: RecordEvent;
  /** Each product's images (modules/product-images), for every answer and event. */
  images: ImageViews;
  clock: Clock;
}) {
  const { db, repo } = deps;

  const imagesOf = async (tx: Executor, storeId: string, productId: string) =>
    (await deps.images.imagesOf(storeId, [productId], tx)).get(productId) ?? [];

  async function resourceOf(tx: Executor, store: Store, product: Product, currency: string, viewer?: Viewer) {
    const variants = (await repo.variantsOf(store.id, [product.id], tx)).get(product.id) ?? [];
    return toProductResource(product, variants, await imagesOf(tx, store.id, product.id), currency, viewer);
  }

  const recordChange = async (
    tx: Executor,
    store: Store,
    product: Product,
    variants: readonly ProductVariant[],
    currency: string,
    topic: ProductTopic,
    images?: readonly ProductImageView[],
  ) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic,
      resourceId: product.id,
      payload: toProductResource(
        product,
        variants,
        images ?? (await imagesOf(tx, store.id, product.id)),
        currency,
      ),
      appMetadata: product.metadata,
    });

  /** Where a new variant's first stock goes: the first active location that fulfils online orders. */
  async function defaultLocation(tx: Executor, store: Store): Promise<string> {
    const [first] = await deps.locations.forOrders(store.id, tx);
    if (first) return first.id;
    const any = (await deps.locations.list(store.id, tx)).find((l) => l.is_active);
    if (!any) throw new AppError("CONFLICT", { message: "The store has no active location for stock." });
    return any.id;
  }

  /** SKUs a write gives: none twice in the write, none another variant of the store has. */
  async function checkSkus(
    tx: Executor,
    store: Store,
    skus: Array<{ sku: string | null | undefined; field: string }>,
    except: string[],
  ) {
    const given = skus.filter((s): s is { sku: string; field: string } => !!s.sku);
    const seen = new Set<string>();
    for (const s of given) {
      if (seen.has(s.sku)) throw skuTaken(s.field);
      seen.add(s.sku);
    }
    const taken = new Set(await repo.takenSkus(store.id, [...seen], except, tx));
    const first = given.find((s) => taken.has(s.sku));
    if (first) throw skuTaken(first.field);
  }

  /** The rows of new variants (positions from `from`) and their first stock. */
  function newVariantRows(
    store: Store,
    productId: string,
    inputs: ReadonlyArray<{ input: VariantInputValue; values: readonly string[]; field: string }>,
    currency: string,
    from: number,
    now: Date,
  ): NewProductVariant[] {
    return inputs.map(({ input, values, field }, i) => {
      const tracked = input.tracked ?? true;
      return {
        store_id: store.id,
        id: newId("variant"),
        product_id: productId,
        position: from + i,
        ...optionColumns(values),
        sku: input.sku ?? null,
        barcode: input.barcode ?? null,
        price_minor: minorOrThrow(input.price, currency, `${field}.price`),
        compare_at_minor:
          input.compareAtPrice == null
            ? null
            : minorOrThrow(input.compareAtPrice, currency, `${field}.compareAtPrice`),
        weight_grams: input.weightGrams ?? null,
        tracked,
        available: tracked ? (input.inventoryQuantity ?? 0) : 0,
        created_at: now,
        updated_at: now,
      };
    });
  }

  /** A variant's patch as column changes (prices in the store's currency). */
  function variantChanges(
    input: Omit<UpdateVariantInput, "optionValues">,
    currency: string,
    field: string,
  ): VariantUpdate {
    const changes: VariantUpdate = {};
    if (input.price !== undefined)
      changes.price_minor = minorOrThrow(input.price, currency, `${field}.price`);
    if (input.compareAtPrice !== undefined)
      changes.compare_at_minor =
        input.compareAtPrice === null
          ? null
          : minorOrThrow(input.compareAtPrice, currency, `${field}.compareAtPrice`);
    if (input.sku !== undefined) changes.sku = input.sku;
    if (input.barcode !== undefined) changes.barcode = input.barcode;
    if (input.weightGrams !== undefined) changes.weight_grams = input.weightGrams;
    if (input.tracked !== undefined) changes.tracked = input.tracked;
    return changes;
  }

  const differs = (changes: VariantUpdate, current: ProductVariant) =>
    (Object.keys(changes) as Array<keyof VariantUpdate>).some((k) => changes[k] !== current[k]);

  /** Variants unfulfilled orders hold are not deleted: 409 naming them. */
  async function assertNotOnOpenOrders(tx: Executor, store: Store, ids: string[], field: string) {
    const held = await repo.variantsOnOpenOrders(store.id, ids, tx);
    if (held.length)
      throw new AppError("CONFLICT", {
        message: "Unfulfilled orders hold these variants: ship or cancel those orders first.",
        details: [{ field, message: `variants on unfulfilled orders: ${held.join(", ")}` }],
      });
  }

  /** Locks the product for a write: 404 when the store has none with this id. */
  async function lock(tx: Executor, store: Store, id: string) {
    const product = await repo.findForUpdate(store.id, id, tx);
    if (!product) throw notFound("Product");
    return product;
  }

  /** After a write under the lock: the product's figures refreshed, its event, its answer. */
  async function finish(
    tx: Executor,
    store: Store,
    productId: string,
    currency: string,
    topic: ProductTopic,
    viewer?: Viewer,
  ) {
    const product = await repo.refreshTotals(store.id, productId, deps.clock.now(), tx);
    const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
    const images = await imagesOf(tx, store.id, productId);
    await recordChange(tx, store, product, variants, currency, topic, images);
    return { product, variants, view: toProductResource(product, variants, images, currency, viewer) };
  }

  return {
    async create(store: Store, input: CreateProductInput, actor: StockActor, viewer?: Viewer) {
      const now = deps.clock.now();
      const options: ProductOptionJson[] = (input.options ?? []).map((o) => ({
        name: o.name,
        values: [...o.values],
      }));
      checkOptions(options);
      const values = input.variants.map((v) => v.optionValues ?? []);
      checkVariantValues(options, values);
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        await checkSkus(
          tx,
          store,
          input.variants.map((v, i) => ({ sku: v.sku, field: `variants.${i}.sku` })),
          [],
        );
        const productId = newId("product");
        const rows = newVariantRows(
          store,
          productId,
          input.variants.map((v, i) => ({ input: v, values: values[i]!, field: `variants.${i}` })),
          currency,
          0,
          now,
        );
        const prices = rows.map((r) => r.price_minor);
        const product = await repo.insert(
          {
            store_id: store.id,
            id: productId,
            title: input.title.trim(),
            description: input.description ?? "",
            vendor: input.vendor?.trim() ?? "",
            product_type: input.productType?.trim() ?? "",
            tags: input.tags ?? [],
            options: jsonb(options),
            price_minor: Math.min(...prices),
            price_max_minor: Math.max(...prices),
            stock: rows.reduce((sum, r) => sum + (r.tracked ? (r.available ?? 0) : 0), 0),
            untracked_variants: rows.filter((r) => !r.tracked).length,
            status: input.status ?? ProductStatus.active,
            created_at: now,
            updated_at: now,
            metadata: jsonb(viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {}),
          },
          tx,
        );
        const variants = await repo.insertVariants(rows, tx);
        await recordChange(tx, store, product, variants, currency, EVENT.productCreated, []);
        const tracked = variants.filter((v) => v.tracked);
        if (tracked.length)
          await deps.inventory.initialStock(
            tx,
            store,
            await defaultLocation(tx, store),
            tracked.map((v) => ({ variantId: v.id, productId, quantity: v.available })),
            actor,
          );
        return toProductResource(product, variants, [], currency, viewer);
      });
    },

    async update(store: Store, id: string, input: UpdateProductInput, actor: StockActor, viewer?: Viewer) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const current = await lock(tx, store, id);
        let variants = (await repo.variantsOf(store.id, [id], tx)).get(id) ?? [];
        const now = deps.clock.now();
        const changes: ProductUpdate = {};
        if (input.title !== undefined && input.title.trim() !== current.title)
          changes.title = input.title.trim();
        if (input.description !== undefined && input.description !== current.description)
          changes.description = input.description;
        if (input.vendor !== undefined && input.vendor.trim() !== current.vendor)
          changes.vendor = input.vendor.trim();
        if (input.productType !== undefined && input.productType.trim() !== current.product_type)
          changes.product_type = input.productType.trim();
        if (input.tags !== undefined && JSON.stringify(input.tags) !== JSON.stringify(current.tags))
          changes.tags = input.tags;
        if (input.status !== undefined && input.status !== current.status) changes.status = input.status;
        let changed = Object.keys(changes).length > 0;
        if (viewer && input.metadata !== undefined) {
          const merged = mergeMetadata(current.metadata, viewer.appId, input.metadata);
          if (merged.changed) {
            changes.metadata = jsonb(merged.metadata);
            changed = true;
          }
        }
        if (input.options !== undefined) {
          const next = input.options.map((o) => ({ name: o.name, values: [...o.values] }));
          if (JSON.stringify(next) !== JSON.stringify(current.options)) {
            const plan = planOptions(
              current.options,
              next,
              variants.map((v) => ({ id: v.id, values: valuesOf(v) })),
            );
            await assertNotOnOpenOrders(tx, store, plan.removed, "options");
            await repo.deleteVariants(store.id, plan.removed, tx);
            // Two passes: a swap of two variants' values must not meet the unique combination index half done.
            const moved = variants.filter(
              (v) =>
                plan.values.has(v.id) &&
                combinationKey(plan.values.get(v.id)!) !== combinationKey(valuesOf(v)),
            );
            for (const v of moved)
              await repo.updateVariant(
                store.id,
                v.id,
                { option1: `\u0001${v.id}`, option2: null, option3: null },
                tx,
              );
            for (const v of moved)
              await repo.updateVariant(
                store.id,
                v.id,
                { ...optionColumns(plan.values.get(v.id)!), updated_at: now },
                tx,
              );
            changes.options = jsonb(plan.options);
            changed = true;
            variants = (await repo.variantsOf(store.id, [id], tx)).get(id) ?? [];
          }
        }
        if (input.variants !== undefined) {
          const patches = input.variants.map((p, i) => {
            const field = `variants.${i}`;
            if (p.id === undefined) {
              if (variants.length !== 1)
                throw new AppError("CONFLICT", {
                  message: `This product has ${variants.length} variants: change each by its id, at API version ${CATALOGUE_VERSION} or later (its variants and the variant operations).`,
                  details: [
                    {
                      field: `${field}.id`,
                      message: `name the variant: the product has ${variants.length} variants`,
                    },
                  ],
                });
              return { patch: p, variant: variants[0]!, field };
            }
            const variant = variants.find((v) => v.id === p.id);
            if (!variant)
              throw new AppError("NOT_FOUND", {
                message: "No such variant of this product.",
                details: [{ field: `${field}.id`, message: "is not a variant of this product" }],
              });
            return { patch: p, variant, field };
          });
          await checkSkus(
            tx,
            store,
            patches.map(({ patch, field }) => ({ sku: patch.sku, field: `${field}.sku` })),
            patches.map(({ variant }) => variant.id),
          );
          for (const { patch, variant, field } of patches) {
            const { id: _id, inventoryQuantity, ...rest } = patch;
            const vc = variantChanges(rest, currency, field);
            if (differs(vc, variant)) {
              await repo.updateVariant(store.id, variant.id, { ...vc, updated_at: now }, tx);
              changed = true;
            }
            if (inventoryQuantity !== undefined) {
              const wrote = await setOnlyLevel(tx, store, variant, inventoryQuantity, field, actor);
              changed ||= wrote;
            }
          }
        }
        // A PATCH that changes nothing is answered with the product as is, and emits no event.
        if (!changed) return resourceOf(tx, store, current, currency, viewer);
        await repo.update(store.id, id, { ...changes, updated_at: now }, tx);
        return (await finish(tx, store, id, currency, EVENT.productUpdated, viewer)).view;
      });
    },

    async remove(store: Store, id: string) {
      const { view, objects } = await db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        await lock(tx, store, id);
        const variants = (await repo.variantsOf(store.id, [id], tx)).get(id) ?? [];
        // Read before the delete: the images go with the product (cascade), their objects after.
        const images = await imagesOf(tx, store.id, id);
        const objects = await deps.images.heldBy(store.id, id, tx);
        const product = await repo.delete(store.id, id, tx);
        if (!product) throw notFound("Product");
        await recordChange(tx, store, product, variants, currency, EVENT.productDeleted, images);
        return { view: toProductResource(product, variants, images, currency), objects };
      });
      await deps.images.discard(store.id, objects);
      return view;
    },

    /** Adds a variant (its values may add values to the product's options). */
    async createVariant(store: Store, productId: string, input: VariantInputValue, actor: StockActor) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const product = await lock(tx, store, productId);
        const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
        if (variants.length >= MAX_VARIANTS)
          throw new AppError("CONFLICT", {
            message: `A product has at most ${MAX_VARIANTS} variants.`,
            details: [{ field: "optionValues", message: `the product has ${MAX_VARIANTS} variants` }],
          });
        if (product.options.length === 0)
          throw new AppError("CONFLICT", {
            message:
              "A product without options has exactly one variant: give it an option (Size, Colour) first.",
            details: [{ field: "optionValues", message: "the product has no options" }],
          });
        const values = input.optionValues ?? [];
        const options = withValues(product.options, values);
        checkVariantValues(options, [...variants.map(valuesOf), values], "variants");
        await checkSkus(tx, store, [{ sku: input.sku, field: "sku" }], []);
        const now = deps.clock.now();
        const [row] = newVariantRows(
          store,
          productId,
          [{ input, values, field: "" }],
          currency,
          Math.max(-1, ...variants.map((v) => v.position)) + 1,
          now,
        );
        const [variant] = await repo.insertVariants([row!], tx);
        if (JSON.stringify(options) !== JSON.stringify(product.options))
          await repo.update(store.id, productId, { options: jsonb(options) }, tx);
        if (variant!.tracked)
          await deps.inventory.initialStock(
            tx,
            store,
            await defaultLocation(tx, store),
            [{ variantId: variant!.id, productId, quantity: variant!.available }],
            actor,
          );
        await finish(tx, store, productId, currency, EVENT.productUpdated);
        return toVariantResource(variant!, currency);
      });
    },

    async updateVariant(
      store: Store,
      productId: string,
      variantId: string,
      input: UpdateVariantInput,
      viewer?: Viewer,
    ) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        const product = await lock(tx, store, productId);
        const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
        const variant = variants.find((v) => v.id === variantId);
        if (!variant) throw notFound("Variant");
        const { optionValues, metadata, ...rest } = input;
        const changes: Parameters<typeof repo.updateVariant>[2] = variantChanges(rest, currency, "");
        // The calling app's own pairs, merged into every app's on the variant (under the product's lock).
        if (viewer && metadata !== undefined) {
          const merged = mergeMetadata(variant.metadata, viewer.appId, metadata);
          if (merged.changed) changes.metadata = jsonb(merged.metadata);
        }
        if (input.sku !== undefined)
          await checkSkus(tx, store, [{ sku: input.sku, field: "sku" }], [variantId]);
        if (
          optionValues !== undefined &&
          combinationKey(optionValues) !== combinationKey(valuesOf(variant))
        ) {
          const options = withValues(product.options, optionValues);
          checkVariantValues(
            options,
            variants.map((v) => (v.id === variantId ? optionValues : valuesOf(v))),
            "variants",
          );
          Object.assign(changes, optionColumns(optionValues));
          if (JSON.stringify(options) !== JSON.stringify(product.options))
            await repo.update(store.id, productId, { options: jsonb(options) }, tx);
        }
        const view = (v: ProductVariant) => forViewer(toVariantResource(v, currency), v.metadata, viewer);
        if (!differs(changes, variant)) return view(variant);
        const updated = await repo.updateVariant(
          store.id,
          variantId,
          { ...changes, updated_at: deps.clock.now() },
          tx,
        );
        await finish(tx, store, productId, currency, EVENT.productUpdated);
        return view(updated);
      });
    },

    async deleteVariant(store: Store, productId: string, variantId: string) {
      return db.transaction().execute(async (tx) => {
        const currency = await deps.stores.currencyForWrite(store.id, tx);
        await lock(tx, store, productId);
        const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
        const variant = variants.find((v) => v.id === variantId);
        if (!variant) throw notFound("Variant");
        if (variants.length === 1)
          throw new AppError("CONFLICT", {
            message: "A product keeps at least one variant: delete the product instead.",
            details: [{ field: "variantId", message: "is the product's only variant" }],
          });
        await assertNotOnOpenOrders(tx, store, [variantId], "variantId");
        await repo.deleteVariants(store.id, [variantId], tx);
        await finish(tx, store, productId, currency, EVENT.productUpdated);
        return toVariantResource(variant, currency);
      });
    },

    async get(store: Store, id: string, viewer?: Viewer) {
      const product = await repo.find(store.id, id);
      if (!product) throw notFound("Product");
      return resourceOf(db, store, product, store.currency, viewer);
    },

    async list(
      store: Store,
      query: PageQuery & ProductListFilter & { priceMin?: string; priceMax?: string },
      viewer?: Viewer,
    ) {
      const filter: ProductListFilter = {
        status: query.status,
        q: query.q?.trim(),
        vendor: query.vendor,
        productType: query.productType,
        tag: query.tag,
        priceMin:
          query.priceMin === undefined ? undefined : minorOrThrow(query.priceMin, store.currency, "priceMin"),
        priceMax:
          query.priceMax === undefined ? undefined : minorOrThrow(query.priceMax, store.currency, "priceMax"),
        stock: query.stock,
      };
      const plan = planPage(query, PRODUCT_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      const ids = page.items.map((p) => p.id);
      const [variants, images] = await Promise.all([
        repo.variantsOf(store.id, ids),
        deps.images.imagesOf(store.id, ids),
      ]);
      return {
        items: page.items.map((p) =>
          toProductResource(p, variants.get(p.id) ?? [], images.get(p.id) ?? [], store.currency, viewer),
        ),
        meta: page.meta,
      };
    },

    /** A bulk export's batch (modules/exports), each product exactly as `list` shows it to `viewer`. */
    async exportBatch(store: Store, window: ExportWindow, viewer?: Viewer) {
      const rows = await repo.exportBatch(store.id, window);
      const ids = rows.map((p) => p.id);
      const [variants, images] = await Promise.all([
        repo.variantsOf(store.id, ids),
        deps.images.imagesOf(store.id, ids),
      ]);
      return rows.map((p) =>
        toProductResource(p, variants.get(p.id) ?? [], images.get(p.id) ?? [], store.currency, viewer),
      );
    },

    /** How many the store has, from the kept counts. */
    async count(store: Store) {
      return repo.count(store.id);
    },
    /** The developer API's offset pages; refuses a page that ends past the first PAGE_WINDOW products. */
    async listByPage(store: Store, page: number, perPage: number) {
      assertPageWindow(page, perPage, "products");
      const [total, rows] = await Promise.all([
        repo.count(store.id),
        repo.listPage(store.id, (page - 1) * perPage, perPage),
      ]);
      const ids = rows.map((p) => p.id);
      const [variants, images] = await Promise.all([
        repo.variantsOf(store.id, ids),
        deps.images.imagesOf(store.id, ids),
      ]);
      return {
        items: rows.map((p) =>
          toProductResource(p, variants.get(p.id) ?? [], images.get(p.id) ?? [], store.currency),
        ),
        meta: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
      };
    },

    /**
     * Emits `product.updated` for a product whose images changed (product-images-service, under
     * the product's lock): its updatedAt moves, its event carries its images as they now are.
     */
    async imagesChanged(tx: Executor, store: Store, productId: string) {
      const product = await repo.update(store.id, productId, { updated_at: deps.clock.now() }, tx);
      if (!product) throw notFound("Product");
      const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
      await recordChange(tx, store, product, variants, store.currency, EVENT.productUpdated);
    },

    /** Emits `product.updated` for a product whose stock changed (the inventory's callback). */
    async stockChanged(tx: Executor, store: Store, productId: string) {
      const product = await repo.find(store.id, productId, tx);
      if (!product) return;
      const variants = (await repo.variantsOf(store.id, [productId], tx)).get(productId) ?? [];
      await recordChange(tx, store, product, variants, store.currency, EVENT.productUpdated);
    },
  };

  /**
   * `inventoryQuantity` in a product's PATCH (what a version before variants called `stock`):
   * sets what is available where all of the variant's stock is; 409 when it is at several
   * locations, where one number cannot say which. Whether anything changed.
   */
  async function setOnlyLevel(
    tx: Executor,
    store: Store,
    variant: ProductVariant,
    quantity: number,
    field: string,
    actor: StockActor,
  ): Promise<boolean> {
    if (!variant.tracked)
      throw new AppError("CONFLICT", {
        message: "This variant's stock is not tracked.",
        details: [{ field: `${field}.inventoryQuantity`, message: "the variant is not tracked" }],
      });
    const levels = await tx
      .selectFrom("inventory_levels")
      .select(["location_id", "available", "on_hand"])
      .where("store_id", "=", store.id)
      .where("variant_id", "=", variant.id)
      .execute();
    const stocked = levels.filter((l) => l.on_hand > 0);
    if (stocked.length > 1)
      throw new AppError("CONFLICT", {
        message: `This variant has stock at ${stocked.length} locations: set each with the inventory operations (API version ${CATALOGUE_VERSION} or later).`,
        details: [
          { field: `${field}.inventoryQuantity`, message: `the stock is at ${stocked.length} locations` },
        ],
      });
    const at = stocked[0] ?? levels[0];
    const locationId = at?.location_id ?? (await defaultLocation(tx, store));
    const delta = quantity - (at?.available ?? 0);
    if (delta === 0) return false;
    await deps.inventory.apply(
      tx,
      store,
      [{ variantId: variant.id, locationId, deltas: { available: delta }, field }],
      { reason: "correction", actor, announce: false },
    );
    return true;
  }
}
export type ProductService = ReturnType<typeof createProductService>;
