import { EVENT, InventoryReason, UNFULFILLED_ORDER_STATUSES } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { EditLineJson, OrderLineItem, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { CustomerRepo } from "../customers/customers-repo.ts";
import type { DiscountService } from "../discounts/discounts-service.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import {
  type InventoryService,
  InventoryShortfall,
  type LevelWrite,
} from "../inventory/inventory-service.ts";
import { type createOrderLines, placedLine } from "../orders/order-lines.ts";
import { priceOrder } from "../orders/order-money.ts";
import { moneyColumns, shippingLinesIn } from "../orders/order-pricing.ts";
import type { Actor, LineItemRow, OrderRepo } from "../orders/orders-repo.ts";
import { outstandingOf, toOrderResource } from "../orders/orders-schemas.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import type { TaxService } from "../taxes/taxes.ts";
import type { OrderEditRepo } from "./order-edits-repo.ts";
import {
  type EditView,
  type OrderEditInput,
  toOrderEditPreview,
  toOrderEditResource,
} from "./order-edits-schemas.ts";

const EDITABLE = new Set<string>(UNFULFILLED_ORDER_STATUSES);

/** Thrown to roll a preview's transaction back, carrying its answer. */
class PreviewDone<T> {
  readonly answer: T;
  constructor(answer: T) {
    this.answer = answer;
  }
}

const asEditLine = (
  li: Pick<
    OrderLineItem,
    "id" | "variant_id" | "title" | "variant_title" | "sku" | "unit_price_minor" | "quantity"
  >,
): EditLineJson => ({
  lineItemId: li.id,
  variantId: li.variant_id,
  title: li.title,
  variantTitle: li.variant_title,
  sku: li.sku,
  unitPriceMinor: li.unit_price_minor,
  quantity: li.quantity,
});

/**
 * Order edits (issue 31, part 5): an order not yet shipped gains or loses lines and units,
 * discount codes and shipping, and is priced again by `priceOrder` as one placed now would be
 * (its lines at the prices they were sold at, added lines at today's, its codes on the terms they
 * had). Its stock is committed and released at its location in the same transaction; the
 * difference shows as `outstanding` on a paid order until the merchant records it settled. A
 * preview runs the very same transaction and rolls it back, so what it shows is what a commit
 * would do then, refusals included.
 */
export function createOrderEditService(deps: {
  db: Db;
  repo: OrderEditRepo;
  orders: Pick<OrderRepo, "find" | "findForUpdate" | "lineItems">;
  lines: ReturnType<typeof createOrderLines>;
  customers: Pick<CustomerRepo, "find">;
  stores: Pick<StoreRepo, "taxSettings">;
  inventory: Pick<InventoryService, "apply">;
  discounts: Pick<DiscountService, "applyToOrder" | "recordUses" | "releaseUses">;
  taxes: Pick<TaxService, "ratesFor">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  async function edit(tx: Executor, store: Store, orderId: string, input: OrderEditInput, actor: Actor) {
    const now = deps.clock.now();
    const order = await deps.orders.findForUpdate(store.id, orderId, tx);
    if (!order) throw notFound("Order");
    if (
      input.expectedUpdatedAt !== undefined &&
      Date.parse(input.expectedUpdatedAt) !== order.updated_at.getTime()
    )
      throw new AppError("CONFLICT", {
        message: "The order changed since this edit was prepared: preview it again.",
        details: [
          {
            field: "expectedUpdatedAt",
            message: `the order's updatedAt is ${order.updated_at.toISOString()}`,
          },
        ],
      });
    if (!EDITABLE.has(order.status))
      throw new AppError("CONFLICT", {
        message: `A ${order.status} order cannot be edited: only one not yet shipped or cancelled.`,
        details: [{ field: "lineItems", message: `the order is ${order.status}` }],
      });
    if (order.refunded_minor > 0)
      throw new AppError("CONFLICT", {
        message: "An order with refunds cannot be edited: refund what is left instead.",
        details: [{ field: "lineItems", message: `the order's payment is ${order.financial_status}` }],
      });
    if (
      input.lineItems === undefined &&
      input.addLineItems === undefined &&
      input.discountCodes === undefined &&
      input.shippingLines === undefined
    )
      throw new AppError("VALIDATION_FAILED", {
        message: "Name what changes: lineItems, addLineItems, discountCodes or shippingLines.",
        details: [{ field: "lineItems", message: "nothing to change" }],
      });
    const items = (await deps.orders.lineItems(store.id, [orderId], tx)).get(orderId) ?? [];

    // The lines' new quantities, each line once.
    const quantities = new Map(items.map((li) => [li.id, li.quantity]));
    const named = new Map<string, number>();
    for (const [i, change] of (input.lineItems ?? []).entries()) {
      const field = `lineItems.${i}.lineItemId`;
      if (!quantities.has(change.lineItemId))
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field, message: "is not a line of this order" }],
        });
      if (named.has(change.lineItemId))
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field, message: "names a line already in this edit" }],
        });
      named.set(change.lineItemId, i);
      quantities.set(change.lineItemId, change.quantity);
    }
    const changed = items.filter((li) => quantities.get(li.id) !== li.quantity);
    // The added variants' products and the changed lines' are locked in one statement, in id
    // order (every stock writer's first lock), and the added ones must be active.
    const added = await deps.lines.resolveLines(tx, store, input.addLineItems ?? [], {
      field: "addLineItems",
      firstPosition: Math.max(-1, ...items.map((li) => li.position)) + 1,
      alsoLock: changed.flatMap((li) => (li.product_id ? [li.product_id] : [])),
    });
    const onOrder = new Set(items.map((li) => li.variant_id));
    for (const l of added)
      if (onOrder.has(l.variant.id))
        throw new AppError("VALIDATION_FAILED", {
          details: [
            {
              field: `${l.field}.variantId`,
              message: "is already on the order: change that line's quantity",
            },
          ],
        });
    const kept = items.filter((li) => quantities.get(li.id)! > 0);
    if (kept.length + added.length === 0)
      throw new AppError("VALIDATION_FAILED", {
        message: "An order keeps one line at least: cancel it instead.",
        details: [{ field: "lineItems", message: "removes every line" }],
      });

    // Stock at the order's location: more units committed, fewer released. Added tracked lines
    // of an order that holds none yet (or whose location was deleted) take a location as a new
    // order would.
    const trackedAdded = added.filter((l) => l.variant.tracked);
    const location =
      order.location_id ??
      (trackedAdded.length ? await deps.lines.chooseLocation(tx, store, trackedAdded, undefined) : null);
    const writes: LevelWrite[] = [];
    for (const li of changed)
      if (li.committed && li.variant_id && location) {
        const delta = quantities.get(li.id)! - li.quantity;
        writes.push({
          variantId: li.variant_id,
          locationId: location,
          deltas: { available: -delta, committed: delta },
          field: `lineItems.${named.get(li.id)}`,
        });
      }
    for (const l of trackedAdded)
      writes.push({
        variantId: l.variant.id,
        locationId: location!,
        deltas: { available: -l.quantity, committed: l.quantity },
        field: `${l.field}`,
      });
    await deps.inventory
      .apply(tx, store, writes, {
        reason: InventoryReason.order_edited,
        actor: { kind: actor.kind, id: actor.id },
        orderId,
        locationsChecked: true,
      })
      .catch((e) => {
        if (e instanceof InventoryShortfall)
          throw deps.lines.notEnoughStock(
            [`${e.write.field}.quantity`],
            "not enough stock at the order's location",
          );
        throw e;
      });

    // The order priced again: its lines at the prices they sold at, the added ones at today's.
    const after = [
      ...kept.map((li) => ({
        row: { ...li, quantity: quantities.get(li.id)! } as OrderLineItem,
        productId: li.product_id,
      })),
      ...added.map((l) => ({
        row: placedLine(store.id, orderId, l) as OrderLineItem,
        productId: l.product.id as string | null,
      })),
    ];
    const shipping =
      input.shippingLines === undefined
        ? order.shipping_lines.map((s) => ({ title: s.title, code: s.code, price: s.priceMinor }))
        : shippingLinesIn(input.shippingLines, order.currency);
    const codesBefore = order.discount_applications.map((a) => a.code);
    const codes = input.discountCodes ?? codesBefore;
    const forDiscounts = {
      orderId,
      customerId: order.customer_id,
      lines: after.map((l) => ({
        unitPrice: l.row.unit_price_minor,
        quantity: l.row.quantity,
        productId: l.productId,
      })),
      hasShipping: shipping.some((s) => s.price > 0),
    };
    const discounts = await deps.discounts.applyToOrder(
      tx,
      store,
      codes,
      forDiscounts,
      now,
      order.discount_applications,
    );
    const settings = await deps.stores.taxSettings(store.id, tx);
    const customer = await deps.customers.find(store.id, order.customer_id, tx);
    const place = order.shipping_address ?? settings.address;
    const priced = priceOrder({
      lines: discounts.lines,
      shipping,
      discounts: discounts.rules,
      taxRates: await deps.taxes.ratesFor(store.id, place?.country ?? null, place?.region ?? null, tx),
      taxesIncluded: order.taxes_included,
      taxShipping: settings.taxShipping,
      taxExempt: customer?.tax_exempt ?? false,
    });
    const money = moneyColumns(priced, discounts.applications);
    const lines: LineItemRow[] = after.map((l, i) => ({
      ...l.row,
      ...money.lines[i]!,
      committed: l.row.committed && location !== null,
    }));
    lines.sort((a, b) => a.position - b.position);

    const kept_ = new Set(codes.map((c) => c.toLowerCase()));
    const dropped = order.discount_applications.filter((a) => !kept_.has(a.code.toLowerCase()));
    await deps.discounts.releaseUses(
      tx,
      store,
      dropped.flatMap((a) => (a.discountId ? [a.discountId] : [])),
      orderId,
    );
    await deps.discounts.recordUses(tx, store, discounts.reserved, forDiscounts, now);
    await repo.replaceLines(store.id, orderId, lines, tx);
    const updated = await repo.updateOrder(
      store.id,
      orderId,
      { ...money.order, location_id: location, updated_at: now },
      tx,
    );
    const view: EditView = {
      lineItemsBefore: items.map(asEditLine),
      lineItemsAfter: lines.map(asEditLine),
      codesBefore,
      codesAfter: discounts.applications.map((a) => a.code),
      shippingBefore: order.shipping_lines.map((s) => ({
        title: s.title,
        code: s.code,
        priceMinor: s.priceMinor,
      })),
      shippingAfter: shipping.map((s) => ({ title: s.title, code: s.code, priceMinor: s.price })),
      totalBeforeMinor: order.total_minor,
      totalAfterMinor: updated.total_minor,
    };
    const row = await repo.insert(
      {
        store_id: store.id,
        id: newId("orderEdit"),
        order_id: orderId,
        note: input.note ?? "",
        line_items_before: view.lineItemsBefore,
        line_items_after: view.lineItemsAfter,
        codes_before: view.codesBefore,
        codes_after: view.codesAfter,
        shipping_before: view.shippingBefore,
        shipping_after: view.shippingAfter,
        total_before_minor: view.totalBeforeMinor,
        total_after_minor: view.totalAfterMinor,
        outstanding_after_minor: outstandingOf(updated),
        actor_kind: actor.kind,
        actor_id: actor.id,
        created_at: now,
      },
      tx,
    );
    const stored = lines as unknown as OrderLineItem[];
    return { order: updated, items: stored, view, row };
  }

  return {
    /** What committing `input` would do now: the same transaction, rolled back. */
    async preview(store: Store, orderId: string, input: OrderEditInput, actor: Actor) {
      try {
        await db.transaction().execute(async (tx) => {
          const done = await edit(tx, store, orderId, input, actor);
          throw new PreviewDone(
            toOrderEditPreview(
              done.order,
              done.view,
              outstandingOf(done.order),
              toOrderResource(done.order, done.items),
            ),
          );
        });
      } catch (e) {
        if (e instanceof PreviewDone)
          return e.answer as ReturnType<typeof toOrderEditPreview<ReturnType<typeof toOrderResource>>>;
        throw e;
      }
      throw new Error("unreachable: a preview always rolls back");
    },

    async create(store: Store, orderId: string, input: OrderEditInput, actor: Actor) {
      return db.transaction().execute(async (tx) => {
        const { order, items, row } = await edit(tx, store, orderId, input, actor);
        const resource = toOrderEditResource(order, row);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.orderEdited,
          resourceId: orderId,
          payload: resource,
        });
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.orderUpdated,
          resourceId: orderId,
          payload: toOrderResource(order, items),
          appMetadata: order.metadata,
        });
        return resource;
      });
    },

    /**
     * Records the difference an edit left on a paid order as settled: collected from the customer
     * (outstanding > 0) or returned to them (< 0) through the store's payment provider, which
     * this records and does not move. `received` becomes the total; 409 when nothing is owed.
     */
    async settle(store: Store, orderId: string) {
      return db.transaction().execute(async (tx) => {
        const order = await deps.orders.findForUpdate(store.id, orderId, tx);
        if (!order) throw notFound("Order");
        const outstanding = outstandingOf(order);
        if (outstanding === 0)
          throw new AppError("CONFLICT", {
            message: "Nothing is owed on this order either way.",
            details: [{ field: "outstanding", message: "is 0" }],
          });
        const updated = await repo.settle(store.id, orderId, deps.clock.now(), tx);
        const items = (await deps.orders.lineItems(store.id, [orderId], tx)).get(orderId) ?? [];
        const resource = toOrderResource(updated, items);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.orderUpdated,
          resourceId: orderId,
          payload: resource,
          appMetadata: updated.metadata,
        });
        return resource;
      });
    },

    async list(store: Store, orderId: string) {
      const order = await deps.orders.find(store.id, orderId);
      if (!order) throw notFound("Order");
      return (await repo.ofOrder(store.id, orderId)).map((r) => toOrderEditResource(order, r));
    },
  };
}
export type OrderEditService = ReturnType<typeof createOrderEditService>;
