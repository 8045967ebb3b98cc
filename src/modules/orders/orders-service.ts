import {
  allowedTransitions,
  canTransition,
  EVENT,
  FinancialStatus,
  ORDER_STATUSES,
  OrderStatus,
  ProductStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type {
  AddressJson,
  FulfillmentJson,
  Order,
  OrderLineItem,
  ProductVariant,
  Store,
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
import { sameAddress, sameTags, toAddress } from "../addresses/addresses.ts";
import { mergeMetadata, type Viewer } from "../app-metadata/app-metadata.ts";
import type { CustomerRepo } from "../customers/customers-repo.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import type { DiscountService } from "../discounts/discounts-service.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { InventoryRepo } from "../inventory/inventory-repo.ts";
import { type InventoryService, InventoryShortfall } from "../inventory/inventory-service.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import { variantTitle } from "../products/product-options.ts";
import type { ProductRepo } from "../products/products-repo.ts";
import { valuesOf } from "../products/products-schemas.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import type { TaxService } from "../taxes/taxes.ts";
import { CATALOGUE_VERSION } from "../versions/changes/2026-11-29-catalogue.ts";
import { priceOrder } from "./order-money.ts";
import {
  type Actor,
  type LineItemRow,
  type OrderChanges,
  type OrderRepo,
  orderNumberOf,
} from "./orders-repo.ts";
import {
  type CreateOrderInput,
  type FulfillmentInputValue,
  ORDER_SORTS,
  toOrderResource,
  type UpdateOrderInput,
} from "./orders-schemas.ts";

/** Statuses after which an order no longer ships anywhere new: its shipping address is final. */
const ADDRESS_FINAL = new Set<OrderStatus>([
  OrderStatus.shipped,
  OrderStatus.delivered,
  OrderStatus.cancelled,
]);

/**
 * Orders: totals computed here from the catalogue, stock taken in the same transaction (and
 * returned on cancellation), every change recorded as its event. Shared by the dashboard (the
 * merchant acts) and the Admin API (an app acts; it sees and writes its own metadata).
 */
export function createOrderService(deps: {
  db: Db;
  repo: OrderRepo;
  customers: Pick<CustomerRepo, "findForOrder">;
  /** Inline customers of an app's order: matched by e-mail address or created in the order's transaction. */
  customerService: Pick<CustomerService, "findOrCreateIn">;
  stores: Pick<StoreRepo, "takeOrderNumber">;
  /** The catalogue's reads an order needs (the inventory's repository). */
  catalogue: Pick<InventoryRepo, "variantsByIds" | "lockProducts" | "levelsAt"> & {
    variantsOf: ProductRepo["variantsOf"];
  };
  locations: Pick<LocationRepo, "forOrders" | "list">;
  inventory: Pick<InventoryService, "apply">;
  discounts: Pick<DiscountService, "applyToOrder" | "recordUses">;
  taxes: Pick<TaxService, "ratesFor">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

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
   * once; their products locked in id order (the lock every stock writer takes first) and active.
   */
  async function resolveLines(tx: Executor, store: Store, lineItems: CreateOrderInput["lineItems"]) {
    const variantIds = lineItems.flatMap((l) => (l.variantId ? [l.variantId] : []));
    const productIds = lineItems.flatMap((l) => (l.productId && !l.variantId ? [l.productId] : []));
    const byId = new Map(
      (await deps.catalogue.variantsByIds(store.id, variantIds, tx)).map((v) => [v.id, v]),
    );
    const byProduct = await deps.catalogue.variantsOf(store.id, productIds, tx);
    const lines = lineItems.map((line, position) => {
      const field = `lineItems.${position}`;
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
          lines.map((l) => l.variant.product_id),
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

  /**
   * Stock of an order that ships (taken from what it committed) or is cancelled (committed back
   * to available), at the order's location; lines whose variant is gone are left. Answers the
   * lines as they are after.
   */
  async function settleStock(
    tx: Executor,
    store: Store,
    order: Order,
    items: OrderLineItem[],
    status: OrderStatus,
    actor: Actor,
  ): Promise<OrderLineItem[]> {
    // Units refunded and restocked before it shipped were released already (refunds-service.ts).
    const held = items.filter((li) => li.committed && li.variant_id && li.quantity > li.restocked_quantity);
    if (held.length === 0 || !order.location_id) return items;
    const exists = new Set(
      (
        await deps.catalogue.variantsByIds(
          store.id,
          held.map((li) => li.variant_id!),
          tx,
        )
      ).map((v) => v.id),
    );
    const writes = held
      .filter((li) => exists.has(li.variant_id!))
      .map((li) => ({
        variantId: li.variant_id!,
        locationId: order.location_id!,
        deltas:
          status === OrderStatus.shipped
            ? { committed: -(li.quantity - li.restocked_quantity) }
            : {
                committed: -(li.quantity - li.restocked_quantity),
                available: li.quantity - li.restocked_quantity,
              },
        field: `lineItems.${li.position}`,
      }));
    await deps.inventory.apply(tx, store, writes, {
      reason: status === OrderStatus.shipped ? "order_shipped" : "order_cancelled",
      actor: { kind: actor.kind, id: actor.id },
      orderId: order.id,
      locationsChecked: true,
    });
    await repo.releaseLines(store.id, order.id, tx);
    return items.map((li) => ({ ...li, committed: false }));
  }

  const recordOrder = (
    tx: Executor,
    store: Store,
    order: Order,
    items: OrderLineItem[],
    topic: (typeof ORDER_STATUSES)[OrderStatus]["event"] | typeof EVENT.orderUpdated,
  ) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic,
      resourceId: order.id,
      payload: toOrderResource(order, items),
      appMetadata: order.metadata,
    });

  return {
    async create(store: Store, input: CreateOrderInput, actor: Actor, viewer?: Viewer) {
      if ((input.customerId === undefined) === (input.customer === undefined)) {
        throw new AppError("VALIDATION_FAILED", {
          message: "Name the order's customer: `customerId` or `customer`, one of them.",
          details: [{ field: "customerId", message: "send customerId or customer (not both)" }],
        });
      }
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        // The store's row first (its number, and its currency and prefix as they are now, locked
        // against a settings change until this commits), then the products in id order: every
        // writer takes these locks in this order, so none waits on another in a cycle.
        const settings = await deps.stores.takeOrderNumber(store.id, tx);
        const { number, currency, prefix } = settings;
        // Locked against the customer's deletion until this commits (findForOrder says why).
        const customer = input.customer
          ? await deps.customerService.findOrCreateIn(tx, store, input.customer, viewer, now)
          : await deps.customers.findForOrder(store.id, input.customerId!, tx);
        if (!customer) {
          throw new AppError("VALIDATION_FAILED", {
            details: [{ field: "customerId", message: "is not a customer of this store" }],
          });
        }
        // An erased customer places nothing more: every order naming them predates the erasure
        // (what lets a stored idempotent answer naming them be taken as erased, idempotency-repo.ts).
        if (customer.anonymized_at) {
          throw new AppError("CONFLICT", {
            message: "This customer was deleted: no order can be placed for them.",
            details: [
              {
                field: input.customer ? "customer.email" : "customerId",
                message: "names a deleted customer",
              },
            ],
          });
        }
        const orderId = newId("order");
        const lines = await resolveLines(tx, store, input.lineItems);
        const location = await chooseLocation(tx, store, lines, input.locationId);
        const stockActor = { kind: actor.kind, id: actor.id };
        await deps.inventory
          .apply(
            tx,
            store,
            lines
              .filter((l) => l.variant.tracked)
              .map((l) => ({
                variantId: l.variant.id,
                locationId: location!,
                deltas: { available: -l.quantity, committed: l.quantity },
                field: `lineItems.${l.position}`,
              })),
            { reason: "order_placed", actor: stockActor, orderId, locationsChecked: true },
          )
          .catch((e) => {
            // Another order took the units between the choice and the write: impossible under
            // the products' locks, but a shortfall is still a 409, never a 500.
            if (e instanceof InventoryShortfall) throw notEnoughStock([`${e.write.field}.quantity`]);
            throw e;
          });
        // Left out: the customer's default address; null: ships nowhere.
        const shipping: AddressJson | null =
          input.shippingAddress === undefined
            ? (customer.addresses?.[0] ?? null)
            : input.shippingAddress && toAddress(input.shippingAddress);
        const shippingLines = (input.shippingLines ?? []).map((s, i) => {
          const price = toMinorUnits(s.price, currency);
          if (price === null)
            throw new AppError("VALIDATION_FAILED", {
              details: [{ field: `shippingLines.${i}.price`, message: `is not an amount in ${currency}` }],
            });
          return { title: s.title.trim(), code: s.code ?? null, price };
        });
        const moneyLines = lines.map((l) => ({
          unitPrice: l.variant.price_minor,
          quantity: l.quantity,
          productId: l.product.id,
        }));
        const forDiscounts = {
          orderId,
          customerId: customer.id,
          lines: moneyLines,
          hasShipping: shippingLines.some((s) => s.price > 0),
        };
        const discounts = await deps.discounts.applyToOrder(
          tx,
          store,
          input.discountCodes ?? [],
          forDiscounts,
          now,
        );
        // Tax where the order ships, or where the store is when it ships nowhere.
        const place = shipping ?? settings.address;
        const priced = priceOrder({
          lines: discounts.lines,
          shipping: shippingLines,
          discounts: discounts.rules,
          taxRates: await deps.taxes.ratesFor(store.id, place?.country ?? null, place?.region ?? null, tx),
          taxesIncluded: settings.taxesIncluded,
          taxShipping: settings.taxShipping,
          taxExempt: customer.tax_exempt,
        });
        const taxLines = (shares: typeof priced.taxLines) =>
          shares.map((t) => ({ title: t.title, ratePpm: t.ratePpm, amountMinor: t.amount }));
        const discountShares = (shares: (typeof priced.lines)[number]["discountAllocations"]) =>
          shares.map((d) => ({ application: d.discount, amountMinor: d.amount }));
        const items: LineItemRow[] = lines.map((l, i) => ({
          store_id: store.id,
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
          total_minor: priced.lines[i]!.subtotal,
          discount_minor: priced.lines[i]!.discount,
          discount_allocations: discountShares(priced.lines[i]!.discountAllocations),
          tax_minor: priced.lines[i]!.tax,
          tax_lines: taxLines(priced.lines[i]!.taxLines),
          committed: l.variant.tracked,
          refunded_quantity: 0,
          restocked_quantity: 0,
        }));
        items.sort((a, b) => a.position - b.position);
        const { totals } = priced;
        const order = await repo.insert(
          {
            store_id: store.id,
            id: orderId,
            number,
            number_prefix: prefix,
            customer_id: customer.id,
            status: OrderStatus.pending,
            currency,
            subtotal_minor: totals.subtotal,
            discounts_minor: totals.discounts,
            shipping_minor: totals.shipping,
            tax_minor: totals.tax,
            tax_included_minor: totals.taxIncluded,
            total_minor: totals.total,
            taxes_included: settings.taxesIncluded,
            financial_status: FinancialStatus.pending,
            refunded_minor: 0,
            shipping_refunded_minor: 0,
            shipping_lines: priced.shipping.map((s) => ({
              title: s.title,
              code: s.code,
              priceMinor: s.price,
              discountMinor: s.discount,
              discountAllocations: discountShares(s.discountAllocations),
              taxMinor: s.tax,
              taxLines: taxLines(s.taxLines),
            })),
            discount_applications: discounts.applied.map((d, k) => ({
              discountId: d.id,
              code: d.code,
              kind: d.kind,
              ratePpm: d.rate_ppm,
              valueMinor: d.amount_minor,
              allocation: d.allocation,
              amountMinor: priced.discountAmounts[k]!,
            })),
            tax_lines: taxLines(priced.taxLines),
            note: input.note ?? "",
            tags: input.tags ?? [],
            shipping_address: shipping,
            fulfillment: null,
            location_id: location,
            metadata: viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {},
            created_at: now,
            updated_at: now,
          },
          items,
          tx,
        );
        await deps.discounts.recordUses(tx, store, discounts.applied, forDiscounts, now);
        await repo.recordStatus(store.id, orderId, OrderStatus.pending, now, actor, tx);
        const stored = items as unknown as OrderLineItem[];
        await recordOrder(tx, store, order, stored, EVENT.orderCreated);
        return toOrderResource(order, stored, viewer);
      });
    },

    /**
     * Moves the order one step along the contract's transitions (409 otherwise). Moving it to
     * `shipped` records how it left (`fulfillment`: carrier, tracking number and URL, each optional,
     * and when); fulfilment details with any other status are a 400.
     */
    async setStatus(
      store: Store,
      id: string,
      status: OrderStatus,
      actor: Actor,
      fulfillment?: FulfillmentInputValue,
      viewer?: Viewer,
    ) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        // Which order first: another store's order is a 404 whatever the body says.
        if (!current) throw notFound("Order");
        if (fulfillment && status !== OrderStatus.shipped) {
          throw new AppError("VALIDATION_FAILED", {
            message: "Fulfilment details go with the move to shipped.",
            details: [
              { field: "fulfillment", message: `is only accepted with status ${OrderStatus.shipped}` },
            ],
          });
        }
        if (!canTransition(current.status, status)) {
          throw new AppError("CONFLICT", {
            message: `An order cannot move from ${current.status} to ${status}.`,
            details: { from: current.status, to: status, allowed: allowedTransitions(current.status) },
          });
        }
        const shipped: FulfillmentJson | undefined =
          status === OrderStatus.shipped
            ? {
                carrier: fulfillment?.carrier ?? null,
                trackingNumber: fulfillment?.trackingNumber ?? null,
                trackingUrl: fulfillment?.trackingUrl ?? null,
                shippedAt: now.toISOString(),
              }
            : undefined;
        // The money follows: paid once marked paid; voided when cancelled before it was.
        const financial =
          current.financial_status === FinancialStatus.pending
            ? status === OrderStatus.paid
              ? FinancialStatus.paid
              : status === OrderStatus.cancelled
                ? FinancialStatus.voided
                : undefined
            : undefined;
        const order = await repo.setStatus(store.id, id, status, shipped, now, tx, financial);
        await repo.recordStatus(store.id, id, status, now, actor, tx);
        let items = (await repo.lineItems(store.id, [id], tx)).get(id) ?? [];
        if (status === OrderStatus.cancelled || status === OrderStatus.shipped)
          items = await settleStock(tx, store, order, items, status, actor);
        await recordOrder(tx, store, order, items, ORDER_STATUSES[status].event);
        return toOrderResource(order, items, viewer);
      });
    },

    /**
     * Changes an order's note, tags, shipping address (until it ships or is cancelled: 409 after)
     * and, for an app, its own metadata. Emits `order.updated` when something changed; an update
     * that changes nothing writes nothing and emits nothing.
     */
    async update(store: Store, id: string, input: UpdateOrderInput, viewer?: Viewer) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Order");
        const changes: OrderChanges = { updated_at: now };
        if (input.note !== undefined && input.note !== current.note) changes.note = input.note;
        if (input.tags !== undefined && !sameTags(input.tags, current.tags ?? [])) changes.tags = input.tags;
        if (input.shippingAddress !== undefined) {
          const address = input.shippingAddress && toAddress(input.shippingAddress);
          if (!sameAddress(address, current.shipping_address)) {
            if (ADDRESS_FINAL.has(current.status)) {
              throw new AppError("CONFLICT", {
                message: `The shipping address of a ${current.status} order cannot change.`,
                details: [
                  { field: "shippingAddress", message: `is final once the order is ${current.status}` },
                ],
              });
            }
            changes.shipping_address = address;
          }
        }
        if (viewer && input.metadata !== undefined) {
          const merged = mergeMetadata(current.metadata, viewer.appId, input.metadata);
          if (merged.changed) changes.metadata = merged.metadata;
        }
        const items = (await repo.lineItems(store.id, [id], tx)).get(id) ?? [];
        if (Object.keys(changes).length === 1) return toOrderResource(current, items, viewer);
        const order = await repo.update(store.id, id, changes, tx);
        await recordOrder(tx, store, order, items, EVENT.orderUpdated);
        return toOrderResource(order, items, viewer);
      });
    },

    /** Each status the order entered, when and by whom, oldest first. */
    async history(store: Store, id: string) {
      if (!(await repo.find(store.id, id))) throw notFound("Order");
      return (await repo.history(store.id, id)).map((h) => ({
        status: h.status,
        at: h.changed_at.toISOString(),
        actor: { kind: h.actor_kind, name: h.actor_name },
      }));
    },

    async get(store: Store, id: string, viewer?: Viewer) {
      const order = await repo.find(store.id, id);
      if (!order) throw notFound("Order");
      const items = await repo.lineItems(store.id, [id]);
      return toOrderResource(order, items.get(id) ?? [], viewer);
    },

    async list(
      store: Store,
      query: PageQuery & {
        status?: OrderStatus | undefined;
        q?: string | undefined;
        customerId?: string | undefined;
      },
      viewer?: Viewer,
    ) {
      const filter = { status: query.status, q: query.q?.trim(), customerId: query.customerId };
      const prefix = store.order_number_prefix;
      if (filter.q && orderNumberOf(filter.q, prefix) === null && filter.q.length < 3) {
        throw new AppError("VALIDATION_FAILED", {
          message: "The search text is too short.",
          details: [
            {
              field: "q",
              message: "must be an order number, or at least 3 characters of the customer's name or e-mail",
            },
          ],
        });
      }
      // The prefix is not part of what the cursor is bound to: it only reads "SO-1042" as 1042.
      const plan = planPage(query, ORDER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, { ...filter, prefix }), plan);
      const items = await repo.lineItems(
        store.id,
        page.items.map((o) => o.id),
      );
      return {
        items: page.items.map((o) => toOrderResource(o, items.get(o.id) ?? [], viewer)),
        meta: page.meta,
      };
    },

    /**
     * A bulk export's batch (modules/exports), each order with its line items exactly as `list`
     * shows it to `viewer`. One snapshot for the orders and their items: a product's deletion
     * updates line items (product id to null), and an order is exported in one state.
     */
    async exportBatch(store: Store, window: ExportWindow, viewer?: Viewer) {
      return db
        .transaction()
        .setIsolationLevel("repeatable read")
        .execute(async (tx) => {
          const rows = await repo.exportBatch(store.id, window, tx);
          const items = await repo.lineItems(
            store.id,
            rows.map((o) => o.id),
            tx,
          );
          return rows.map((o) => toOrderResource(o, items.get(o.id) ?? [], viewer));
        });
    },

    /** The developer API's offset pages with the store's total (from the kept counts). */
    async listByPage(store: Store, page: number, perPage: number) {
      assertPageWindow(page, perPage, "orders");
      const [total, rows] = await Promise.all([
        repo.count(store.id),
        repo.listPage(store.id, (page - 1) * perPage, perPage),
      ]);
      const items = await repo.lineItems(
        store.id,
        rows.map((o) => o.id),
      );
      return {
        items: rows.map((o) => toOrderResource(o, items.get(o.id) ?? [])),
        meta: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
      };
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
