import { EVENT, InventoryReason, OrderStatus, RETURN_STATUSES, ReturnStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Order, Return, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { InventoryRepo } from "../inventory/inventory-repo.ts";
import type { InventoryService } from "../inventory/inventory-service.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import type { Actor, OrderRepo } from "../orders/orders-repo.ts";
import { isRefundable, type RefundService, restockLocation } from "../refunds/refunds-service.ts";
import { type CreateReturnInput, toReturnResource } from "./returns-schemas.ts";

/** Fulfilment statuses in which an order's units have left: only those can come back. */
const SHIPPED = new Set<OrderStatus>([OrderStatus.shipped, OrderStatus.delivered]);
const TOPIC = {
  requested: EVENT.returnRequested,
  approved: EVENT.returnApproved,
  declined: EVENT.returnDeclined,
  received: EVENT.returnReceived,
  closed: EVENT.returnClosed,
} as const satisfies Record<ReturnStatus, unknown>;
const STAMP = {
  approved: "approved_at",
  declined: "declined_at",
  received: "received_at",
  closed: "closed_at",
} as const;

/**
 * Returns (issue 31, part 4): units of a shipped order coming back, each with its reason, moved
 * along the contract's steps (RETURN_STATUSES: 409 for any other move), each step its event. A
 * line never has more units in returns that are not declined than it had; receiving restocks at
 * a location; closing refunds the returned units through the refunds service (their share of
 * discounts and tax), linking the refund. The order's row is locked first, as a refund's is.
 */
export function createReturnService(deps: {
  db: Db;
  orders: Pick<OrderRepo, "find" | "findForUpdate" | "lineItems">;
  refunds: Pick<RefundService, "createIn">;
  catalogue: Pick<InventoryRepo, "variantsByIds">;
  locations: Pick<LocationRepo, "list">;
  inventory: Pick<InventoryService, "apply">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db } = deps;

  const linesOf = (tx: Executor, storeId: string, returnIds: readonly string[]) =>
    returnIds.length === 0
      ? Promise.resolve([])
      : tx
          .selectFrom("return_line_items")
          .selectAll()
          .where("store_id", "=", storeId)
          .where("return_id", "in", returnIds as string[])
          .execute();

  async function view(tx: Executor, store: Store, r: Return, order: Pick<Order, "customer_id">) {
    return toReturnResource(r, await linesOf(tx, store.id, [r.id]), order.customer_id);
  }

  async function record(tx: Executor, store: Store, r: Return, order: Order) {
    const resource = await view(tx, store, r, order);
    await deps.recordEvent(tx, {
      storeId: store.id,
      topic: TOPIC[r.status],
      resourceId: r.order_id,
      payload: resource,
    });
    return resource;
  }

  /** The return and its order, both locked (the order's row first, as every order writer). */
  async function locked(tx: Executor, store: Store, id: string) {
    const found = await tx
      .selectFrom("returns")
      .select("order_id")
      .where("store_id", "=", store.id)
      .where("id", "=", id)
      .executeTakeFirst();
    if (!found) throw notFound("Return");
    const order = (await deps.orders.findForUpdate(store.id, found.order_id, tx))!;
    const r = await tx
      .selectFrom("returns")
      .selectAll()
      .where("store_id", "=", store.id)
      .where("id", "=", id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    return { order, r };
  }

  async function move(tx: Executor, store: Store, r: Return, to: ReturnStatus, set: Partial<Return> = {}) {
    const allowed: readonly string[] = RETURN_STATUSES[r.status].next;
    if (!allowed.includes(to))
      throw new AppError("CONFLICT", {
        message: `A return cannot move from ${r.status} to ${to}.`,
        details: { from: r.status, to, allowed },
      });
    const now = deps.clock.now();
    return tx
      .updateTable("returns")
      .set({ ...set, status: to, [STAMP[to as keyof typeof STAMP]]: now, updated_at: now })
      .where("store_id", "=", store.id)
      .where("id", "=", r.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  return {
    async create(store: Store, orderId: string, input: CreateReturnInput) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const order = await deps.orders.findForUpdate(store.id, orderId, tx);
        if (!order) throw notFound("Order");
        if (!SHIPPED.has(order.status))
          throw new AppError("CONFLICT", {
            message: "Only a shipped order's units can be returned.",
            details: [{ field: "lineItems", message: `the order is ${order.status}` }],
          });
        const items = (await deps.orders.lineItems(store.id, [orderId], tx)).get(orderId) ?? [];
        // Units of each line already in returns that were not declined.
        const open = await tx
          .selectFrom("return_line_items as l")
          .innerJoin("returns as r", (j) =>
            j.onRef("r.store_id", "=", "l.store_id").onRef("r.id", "=", "l.return_id"),
          )
          .select(["l.line_item_id", "l.quantity"])
          .where("r.store_id", "=", store.id)
          .where("r.order_id", "=", orderId)
          .where("r.status", "<>", ReturnStatus.declined)
          .execute();
        const seen = new Set<string>();
        input.lineItems.forEach((l, i) => {
          const li = items.find((x) => x.id === l.lineItemId);
          if (!li || seen.has(l.lineItemId))
            throw new AppError("VALIDATION_FAILED", {
              details: [
                {
                  field: `lineItems.${i}.lineItemId`,
                  message: li ? "names a line already in this return" : "is not a line of this order",
                },
              ],
            });
          seen.add(li.id);
          const taken = open.filter((o) => o.line_item_id === li.id).reduce((a, o) => a + o.quantity, 0);
          if (l.quantity > li.quantity - taken)
            throw new AppError("CONFLICT", {
              message: "More units than the order can still return.",
              details: [
                {
                  field: `lineItems.${i}.quantity`,
                  message: `only ${li.quantity - taken} of this line can come back`,
                },
              ],
            });
        });
        const r = await tx
          .insertInto("returns")
          .values({
            store_id: store.id,
            id: newId("return"),
            order_id: orderId,
            status: ReturnStatus.requested,
            note: input.note ?? "",
            requested_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx
          .insertInto("return_line_items")
          .values(
            input.lineItems.map((l) => ({
              store_id: store.id,
              return_id: r.id,
              line_item_id: l.lineItemId,
              quantity: l.quantity,
              reason: l.reason,
            })),
          )
          .execute();
        return record(tx, store, r, order);
      });
    },

    async approve(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const { order, r } = await locked(tx, store, id);
        return record(tx, store, await move(tx, store, r, ReturnStatus.approved), order);
      });
    },
    async decline(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const { order, r } = await locked(tx, store, id);
        return record(tx, store, await move(tx, store, r, ReturnStatus.declined), order);
      });
    },

    /** The units arrived: back into stock at a location (the default), or not. */
    async receive(
      store: Store,
      id: string,
      input: { restock?: boolean | undefined; locationId?: string | undefined },
      actor: Actor,
    ) {
      return db.transaction().execute(async (tx) => {
        const { order, r } = await locked(tx, store, id);
        const locationId =
          (input.restock ?? true)
            ? await restockLocation(deps.locations, tx, store, order, input.locationId)
            : null;
        const moved = await move(tx, store, r, ReturnStatus.received, { location_id: locationId });
        if (locationId) {
          const lines = await linesOf(tx, store.id, [r.id]);
          const items = (await deps.orders.lineItems(store.id, [order.id], tx)).get(order.id) ?? [];
          const variantOf = new Map(items.map((li) => [li.id, li.variant_id]));
          const tracked = new Set(
            (
              await deps.catalogue.variantsByIds(
                store.id,
                lines.flatMap((l) => (variantOf.get(l.line_item_id) ? [variantOf.get(l.line_item_id)!] : [])),
                tx,
              )
            )
              .filter((v) => v.tracked)
              .map((v) => v.id),
          );
          await deps.inventory.apply(
            tx,
            store,
            lines
              .filter((l) => tracked.has(variantOf.get(l.line_item_id) ?? ""))
              .map((l, i) => ({
                variantId: variantOf.get(l.line_item_id)!,
                locationId: locationId!,
                deltas: { available: l.quantity },
                field: `lineItems.${i}`,
              })),
            {
              reason: InventoryReason.restock,
              note: `Return ${r.id}`,
              actor: { kind: actor.kind, id: actor.id },
              orderId: order.id,
              locationsChecked: true,
            },
          );
        }
        return record(tx, store, moved, order);
      });
    },

    /** Closes it; refunds the returned units (and the shipping when asked) when the order is paid. */
    async close(
      store: Store,
      id: string,
      input: { refund?: boolean | undefined; shipping?: boolean | undefined },
      actor: Actor,
    ) {
      return db.transaction().execute(async (tx) => {
        const { order, r } = await locked(tx, store, id);
        const paid = isRefundable(order);
        let refundId: string | null = null;
        if ((input.refund ?? paid) && r.status !== ReturnStatus.requested) {
          const lines = await linesOf(tx, store.id, [r.id]);
          const refund = await deps.refunds.createIn(
            tx,
            store,
            order.id,
            {
              lineItems: lines.map((l) => ({ lineItemId: l.line_item_id, quantity: l.quantity })),
              shipping: input.shipping ?? false,
              restock: false,
              note: `Return ${r.id}`,
            },
            actor,
          );
          refundId = refund.id;
        }
        const moved = await move(tx, store, r, ReturnStatus.closed, { refund_id: refundId });
        return record(tx, store, moved, (await deps.orders.find(store.id, order.id, tx))!);
      });
    },

    async get(store: Store, id: string) {
      const r = await db
        .selectFrom("returns")
        .selectAll()
        .where("store_id", "=", store.id)
        .where("id", "=", id)
        .executeTakeFirst();
      if (!r) throw notFound("Return");
      const order = (await deps.orders.find(store.id, r.order_id))!;
      return view(db, store, r, order);
    },
    async ofOrder(store: Store, orderId: string) {
      const order = await deps.orders.find(store.id, orderId);
      if (!order) throw notFound("Order");
      const rows = await db
        .selectFrom("returns")
        .selectAll()
        .where("store_id", "=", store.id)
        .where("order_id", "=", orderId)
        .orderBy("requested_at")
        .orderBy("id")
        .execute();
      const lines = await linesOf(
        db,
        store.id,
        rows.map((r) => r.id),
      );
      return rows.map((r) =>
        toReturnResource(
          r,
          lines.filter((l) => l.return_id === r.id),
          order.customer_id,
        ),
      );
    },
  };
}
export type ReturnService = ReturnType<typeof createReturnService>;
