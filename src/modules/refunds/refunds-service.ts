import { EVENT, FinancialStatus, InventoryReason, OrderStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Order, OrderLineItem, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { InventoryRepo } from "../inventory/inventory-repo.ts";
import type { InventoryService } from "../inventory/inventory-service.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import { refundShare, shippingPaid } from "../orders/order-money.ts";
import type { Actor, OrderRepo } from "../orders/orders-repo.ts";
import { outstandingOf, toOrderResource } from "../orders/orders-schemas.ts";
import type { RefundRepo } from "./refunds-repo.ts";
import {
  type RefundInput,
  type RefundView,
  toRefundCalculation,
  toRefundResource,
} from "./refunds-schemas.ts";

/** Fulfilment statuses after which the order's units have left: a restock puts them back as new stock. */
const SHIPPED = new Set<OrderStatus>([OrderStatus.shipped, OrderStatus.delivered]);
const REFUNDABLE = new Set<FinancialStatus>([FinancialStatus.paid, FinancialStatus.partially_refunded]);

/** Whether an order has money left to refund: paid, and not refunded in full. */
export const isRefundable = (order: Pick<Order, "financial_status">) =>
  REFUNDABLE.has(order.financial_status);

/**
 * Where restocked units of `order` go: the location asked for, else the order's own, else the
 * store's first active one; it must be active (400 otherwise). A refund's and a return's.
 */
export async function restockLocation(
  locations: Pick<LocationRepo, "list">,
  tx: Executor,
  store: Store,
  order: Pick<Order, "location_id">,
  asked: string | undefined,
): Promise<string> {
  const active = (await locations.list(store.id, tx)).filter((l) => l.is_active);
  const wanted = asked ?? order.location_id ?? active[0]?.id;
  if (!wanted || !active.some((l) => l.id === wanted))
    throw new AppError("VALIDATION_FAILED", {
      details: [{ field: "locationId", message: "is not an active location of this store" }],
    });
  return wanted;
}

/**
 * Refunds (issue 31, part 3): what a refund of some units (and the shipping) returns, suggested
 * then recorded. Each line's share of its discounts and tax is prorated by units (`refundShare`),
 * so refunding in steps returns exactly what was paid; the ceilings (units per line, the order's
 * total) are checked and written in single statements under the order's row lock, and held by
 * the rows' CHECKs too. A refund records money the merchant's payment provider returned: it
 * moves none itself. Restocking puts units back at a location (`order_refunded`): units still
 * committed to an unshipped order are released, units that had shipped come back as available.
 */
export function createRefundService(deps: {
  db: Db;
  repo: RefundRepo;
  orders: Pick<OrderRepo, "find" | "findForUpdate" | "lineItems">;
  catalogue: Pick<InventoryRepo, "variantsByIds">;
  locations: Pick<LocationRepo, "list">;
  inventory: Pick<InventoryService, "apply">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  /** The refund `input` asks of `order` as it is: every amount, nothing written. */
  async function plan(tx: Executor, store: Store, order: Order, items: OrderLineItem[], input: RefundInput) {
    if (!isRefundable(order))
      throw new AppError("CONFLICT", {
        message:
          order.financial_status === FinancialStatus.refunded
            ? "This order is refunded in full already."
            : "Only a paid order can be refunded: mark it paid first (a refund records money returned).",
        details: [{ field: "lineItems", message: `the order's payment is ${order.financial_status}` }],
      });
    if (outstandingOf(order) !== 0)
      throw new AppError("CONFLICT", {
        message:
          "An edit left a difference on this order: record it settled first (POST /orders/{id}/settle), then refund.",
        details: [{ field: "lineItems", message: "the order's outstanding is not 0" }],
      });
    const asked = input.lineItems ?? [];
    const byId = new Map(items.map((li) => [li.id, li]));
    const seen = new Set<string>();
    const restockDefault = input.restock ?? false;
    const lines = asked.map((a, i) => {
      const li = byId.get(a.lineItemId);
      if (!li)
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: `lineItems.${i}.lineItemId`, message: "is not a line of this order" }],
        });
      if (seen.has(li.id))
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: `lineItems.${i}.lineItemId`, message: "names a line already in this refund" }],
        });
      seen.add(li.id);
      const left = li.quantity - li.refunded_quantity;
      if (a.quantity > left)
        throw new AppError("CONFLICT", {
          message: "More units than are left to refund.",
          details: [
            { field: `lineItems.${i}.quantity`, message: `only ${left} of this line left to refund` },
          ],
        });
      const share = refundShare(
        {
          quantity: li.quantity,
          refundedQuantity: li.refunded_quantity,
          subtotal: li.total_minor,
          discount: li.discount_minor,
          tax: li.tax_minor,
        },
        a.quantity,
        order.taxes_included,
      );
      return {
        li,
        quantity: a.quantity,
        restock: (a.restock ?? restockDefault) && li.variant_id !== null,
        share,
      };
    });
    // The shipping goes back whole (what is left of it is all of it, or nothing), its tax with it.
    const shippingOwed = input.shipping
      ? shippingPaid(
          order.shipping_lines.map((s) => ({
            price: s.priceMinor,
            discount: s.discountMinor,
            tax: s.taxMinor,
          })),
          order.taxes_included,
        )
      : { amount: 0, tax: 0 };
    const shippingLeft = shippingOwed.amount - order.shipping_refunded_minor;
    const shippingTax = shippingLeft > 0 ? shippingOwed.tax : 0;
    if (lines.length === 0 && shippingLeft <= 0)
      throw new AppError("VALIDATION_FAILED", {
        message: "Name the units to refund (lineItems), or the shipping when some is left to refund.",
        details: [{ field: "lineItems", message: "nothing to refund" }],
      });
    const locationId = lines.some((l) => l.restock)
      ? await restockLocation(deps.locations, tx, store, order, input.locationId)
      : null;
    const view: Omit<RefundView, "id" | "note" | "createdAt"> = {
      locationId,
      shippingMinor: Math.max(0, shippingLeft),
      taxMinor: lines.reduce((a, l) => a + l.share.tax, 0) + shippingTax,
      amountMinor: lines.reduce((a, l) => a + l.share.amount, 0) + Math.max(0, shippingLeft),
      lines: lines.map((l) => ({
        lineItemId: l.li.id,
        quantity: l.quantity,
        subtotalMinor: l.share.subtotal,
        discountMinor: l.share.discount,
        taxMinor: l.share.tax,
        amountMinor: l.share.amount,
        restock: l.restock,
      })),
    };
    return { view, lines };
  }

  async function orderAndItems(tx: Executor, store: Store, orderId: string, lock: boolean) {
    const order = lock
      ? await deps.orders.findForUpdate(store.id, orderId, tx)
      : await deps.orders.find(store.id, orderId, tx);
    if (!order) throw notFound("Order");
    const items = (await deps.orders.lineItems(store.id, [orderId], tx)).get(orderId) ?? [];
    return { order, items };
  }

  return {
    /** The suggested refund: what `create` with the same body would record now. */
    async calculate(store: Store, orderId: string, input: RefundInput) {
      const { order, items } = await orderAndItems(db, store, orderId, false);
      const { view } = await plan(db, store, order, items, input);
      return toRefundCalculation(order, view);
    },

    async create(store: Store, orderId: string, input: RefundInput, actor: Actor) {
      return db.transaction().execute((tx) => createIn(tx, store, orderId, input, actor));
    },
    /** The refund in the caller's transaction (a return's close refunds in its own). */
    createIn,

    async list(store: Store, orderId: string) {
      const order = await deps.orders.find(store.id, orderId);
      if (!order) throw notFound("Order");
      return (await repo.ofOrder(store.id, orderId)).map((r) => toRefundResource(order, r));
    },
  };

  async function createIn(tx: Executor, store: Store, orderId: string, input: RefundInput, actor: Actor) {
    const now = deps.clock.now();
    // The order's row first: two refunds of one order run one after the other, and the
    // second sees what the first refunded.
    const { order, items } = await orderAndItems(tx, store, orderId, true);
    const { view, lines } = await plan(tx, store, order, items, input);
    const shipped = SHIPPED.has(order.status);
    // Released: units an unshipped order still held committed, which will never ship now.
    const released = (l: (typeof lines)[number]) =>
      l.restock && l.li.committed && !shipped && order.status !== OrderStatus.cancelled ? l.quantity : 0;
    for (const l of lines)
      if (!(await repo.refundUnits(store.id, l.li.id, l.quantity, released(l), tx)))
        throw new AppError("CONFLICT", { message: "More units than are left to refund." });
    const restocked = lines.filter((l) => l.restock);
    if (restocked.length) {
      const tracked = new Set(
        (
          await deps.catalogue.variantsByIds(
            store.id,
            restocked.map((l) => l.li.variant_id!),
            tx,
          )
        )
          .filter((v) => v.tracked)
          .map((v) => v.id),
      );
      await deps.inventory.apply(
        tx,
        store,
        restocked
          .filter((l) => tracked.has(l.li.variant_id!))
          .map((l) => ({
            variantId: l.li.variant_id!,
            locationId: view.locationId!,
            deltas: released(l)
              ? { committed: -l.quantity, available: l.quantity }
              : { available: l.quantity },
            field: `lineItems.${l.li.position}`,
          })),
        {
          reason: InventoryReason.order_refunded,
          actor: { kind: actor.kind, id: actor.id },
          orderId,
          // A release is at the order's own location; new stock goes where the merchant said.
          locationsChecked: true,
        },
      );
    }
    const total = order.refunded_minor + view.amountMinor;
    const updated = await repo.addToOrder(
      store.id,
      orderId,
      {
        amount: view.amountMinor,
        shipping: view.shippingMinor,
        status: total >= order.total_minor ? FinancialStatus.refunded : FinancialStatus.partially_refunded,
        now,
      },
      tx,
    );
    const refund: RefundView = { id: newId("refund"), note: input.note ?? "", createdAt: now, ...view };
    await repo.insert({ ...refund, storeId: store.id, orderId, actor }, tx);
    const resource = toRefundResource(updated, refund);
    await deps.recordEvent(tx, {
      storeId: store.id,
      topic: EVENT.refundCreated,
      resourceId: orderId,
      payload: resource,
    });
    const after = (await deps.orders.lineItems(store.id, [orderId], tx)).get(orderId) ?? [];
    await deps.recordEvent(tx, {
      storeId: store.id,
      topic: EVENT.orderUpdated,
      resourceId: orderId,
      payload: toOrderResource(updated, after),
      appMetadata: updated.metadata,
    });
    return resource;
  }
}
export type RefundService = ReturnType<typeof createRefundService>;
