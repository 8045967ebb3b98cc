import { ProductStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { ProductVariant, Store } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { InventoryRepo } from "../inventory/inventory-repo.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import { variantTitle } from "../products/product-options.ts";
import type { ProductRepo } from "../products/products-repo.ts";
import { valuesOf } from "../products/products-schemas.ts";
import { CATALOGUE_VERSION } from "../versions/changes/2026-11-29-catalogue.ts";

/** A line an order is asked for: a variant (or a product with one variant) and how many. */
export interface LineAsked {
  variantId?: string | undefined;
  productId?: string | undefined;
  quantity: number;
}

/**
 * The lines of an order as the catalogue has them, and where their stock comes from: what
 * placing an order and adding lines to one (an edit) both ask.
 */
export function createOrderLines(deps: {
  catalogue: Pick<InventoryRepo, "variantsByIds" | "lockProducts" | "levelsAt"> & {
    variantsOf: ProductRepo["variantsOf"];
  };
  locations: Pick<LocationRepo, "forOrders" | "list">;
}) {
  const notEnoughStock = (
    fields: string[],
    detail = "not enough stock at any location that fulfils online orders",
  ) =>
    new AppError("CONFLICT", {
      message: "Not enough stock for this order.",
      details: fields.map((field) => ({ field, message: detail })),
    });

  /**
   * The order's lines as variants (a product with one variant may be named by its product), each
   * once; their products locked in id order (the lock every stock writer takes first), with
   * `alsoLock` (products of lines an edit changes) in the same statement, and active. `field`
   * names the body's list in errors; `firstPosition` is the first line's position in the order.
   */
  async function resolveLines(
    tx: Executor,
    store: Store,
    lineItems: readonly LineAsked[],
    options: { field?: string; firstPosition?: number; alsoLock?: readonly string[] } = {},
  ) {
    const list = options.field ?? "lineItems";
    const first = options.firstPosition ?? 0;
    const variantIds = lineItems.flatMap((l) => (l.variantId ? [l.variantId] : []));
    const productIds = lineItems.flatMap((l) => (l.productId && !l.variantId ? [l.productId] : []));
    const byId = new Map(
      (await deps.catalogue.variantsByIds(store.id, variantIds, tx)).map((v) => [v.id, v]),
    );
    const byProduct = await deps.catalogue.variantsOf(store.id, productIds, tx);
    const lines = lineItems.map((line, i) => {
      const field = `${list}.${i}`;
      const position = first + i;
      if (!line.variantId && !line.productId)
        throw new AppError("VALIDATION_FAILED", {
          details: [
            {
              field: `${field}.variantId`,
              message: "name the variant sold (or the product, when it has one variant)",
            },
          ],
        });
      let variant: ProductVariant | undefined;
      if (line.variantId) {
        variant = byId.get(line.variantId);
        if (!variant || (line.productId && variant.product_id !== line.productId))
          throw new AppError("VALIDATION_FAILED", {
            details: [{ field: `${field}.variantId`, message: "is not a variant of this store's product" }],
          });
      } else {
        const variants = byProduct.get(line.productId!) ?? [];
        if (variants.length > 1)
          throw new AppError("CONFLICT", {
            message: `This product has ${variants.length} variants: name the one sold (\`variantId\`, API version ${CATALOGUE_VERSION} or later).`,
            details: [
              { field: `${field}.productId`, message: `has ${variants.length} variants: send variantId` },
            ],
          });
        variant = variants[0];
        if (!variant)
          throw new AppError("VALIDATION_FAILED", {
            details: [{ field: `${field}.productId`, message: "is not an active product of this store" }],
          });
      }
      return { position, variant, quantity: line.quantity, field };
    });
    const seen = new Set<string>();
    for (const l of lines) {
      if (seen.has(l.variant.id))
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: `${l.field}.variantId`, message: "lists a variant already in this order" }],
        });
      seen.add(l.variant.id);
    }
    const products = new Map(
      (
        await deps.catalogue.lockProducts(
          store.id,
          [...lines.map((l) => l.variant.product_id), ...(options.alsoLock ?? [])],
          tx,
        )
      ).map((p) => [p.id, p]),
    );
    return lines.map((l) => {
      const product = products.get(l.variant.product_id);
      if (product?.status !== ProductStatus.active)
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: `${l.field}.productId`, message: "is not an active product of this store" }],
        });
      return { ...l, product };
    });
  }

  /**
   * Where the order takes its stock: the location asked for (active), else the first active
   * location that fulfils online orders and holds every tracked line; null when nothing is
   * tracked. Read under the products' locks, so what it sees is what the write finds.
   */
  async function chooseLocation(
    tx: Executor,
    store: Store,
    lines: Array<{ variant: ProductVariant; quantity: number; field: string }>,
    asked: string | undefined,
  ): Promise<string | null> {
    const tracked = lines.filter((l) => l.variant.tracked);
    const candidates = asked
      ? (await deps.locations.list(store.id, tx)).filter((l) => l.id === asked && l.is_active)
      : await deps.locations.forOrders(store.id, tx);
    if (asked && candidates.length === 0)
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: "locationId", message: "is not an active location of this store" }],
      });
    if (tracked.length === 0) return candidates[0]?.id ?? null;
    const levels = await deps.catalogue.levelsAt(
      store.id,
      tracked.map((l) => l.variant.id),
      candidates.map((c) => c.id),
      tx,
    );
    const at = (variantId: string, locationId: string) =>
      levels.find((l) => l.variant_id === variantId && l.location_id === locationId)?.available ?? 0;
    const fits = candidates.find((c) => tracked.every((l) => at(l.variant.id, c.id) >= l.quantity));
    if (fits) return fits.id;
    const short = tracked.filter((l) => !candidates.some((c) => at(l.variant.id, c.id) >= l.quantity));
    throw new AppError("CONFLICT", {
      message: "Not enough stock for this order.",
      details: (short.length ? short : tracked).map((l) => {
        const best = Math.max(0, ...candidates.map((c) => at(l.variant.id, c.id)));
        return {
          field: `${l.field}.quantity`,
          message: short.length
            ? `only ${best} in stock${asked ? " at this location" : " at one location"}`
            : "no one location holds every line",
        };
      }),
    });
  }

  return { resolveLines, chooseLocation, notEnoughStock };
}

/**
 * A resolved line's row as placed (before its money: `moneyColumns` adds that): the product's
 * title, the variant's title, SKU and price now, committed when the variant's stock is tracked.
 */
export function placedLine(
  storeId: string,
  orderId: string,
  l: { position: number; quantity: number; variant: ProductVariant; product: { id: string; title: string } },
) {
  return {
    store_id: storeId,
    id: newId("lineItem"),
    order_id: orderId,
    position: l.position,
    product_id: l.product.id,
    variant_id: l.variant.id,
    title: l.product.title,
    variant_title: variantTitle(valuesOf(l.variant)),
    sku: l.variant.sku,
    unit_price_minor: l.variant.price_minor,
    quantity: l.quantity,
    committed: l.variant.tracked,
    refunded_quantity: 0,
    restocked_quantity: 0,
  };
}
