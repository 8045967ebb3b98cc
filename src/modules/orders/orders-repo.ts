import { sql } from "kysely";
import { type ActorKind, ProductStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { Order, OrderLineItem, OrderStatus, Product } from "../../db/schema.ts";
import { containsPattern, keyset, type PagePlan } from "../../lib/pagination.ts";

/** The order number a search text names ("1042", "#1042"), or null when it is other text. */
export function orderNumberOf(text: string): number | null {
  return /^#?\d{1,15}$/.test(text) ? Number(text.replace("#", "")) : null;
}

/** Who changed an order: a merchant's account, or the platform itself. */
export interface Actor {
  kind: ActorKind;
  id: string | null;
  name: string;
}

export function createOrderRepo(db: Executor) {
  return {
    async insert(order: Order, items: OrderLineItem[], tx: Executor) {
      await tx.insertInto("orders").values(order).execute();
      await tx.insertInto("order_line_items").values(items).execute();
    },
    async find(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("orders")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    async findForUpdate(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("orders")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirst();
    },
    async setStatus(storeId: string, id: string, status: OrderStatus, now: Date, tx: Executor) {
      return tx
        .updateTable("orders")
        .set({ status, updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /**
     * Records that the order entered `status`, after the changes recorded so far. Call it in the
     * transaction that changes the status, with the order row locked (or just inserted), so the
     * sequence has no gaps or twins.
     */
    async recordStatus(
      storeId: string,
      orderId: string,
      status: OrderStatus,
      at: Date,
      actor: Actor,
      tx: Executor,
    ) {
      await tx
        .insertInto("order_status_changes")
        .values((eb) => ({
          store_id: storeId,
          order_id: orderId,
          seq: eb
            .selectFrom("order_status_changes")
            .select(sql<number>`coalesce(max(seq), 0) + 1`.as("next"))
            .where("store_id", "=", storeId)
            .where("order_id", "=", orderId),
          status,
          changed_at: at,
          actor_kind: actor.kind,
          actor_id: actor.id,
          actor_name: actor.name,
        }))
        .execute();
    },
    async history(storeId: string, orderId: string, tx: Executor = db) {
      return tx
        .selectFrom("order_status_changes")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("order_id", "=", orderId)
        .orderBy("seq")
        .execute();
    },
    /** Line items of several orders in one query, grouped by order id. */
    async lineItems(storeId: string, orderIds: string[], tx: Executor = db) {
      const byOrder = new Map<string, OrderLineItem[]>();
      if (orderIds.length === 0) return byOrder;
      const rows = await tx
        .selectFrom("order_line_items")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("order_id", "in", orderIds)
        .orderBy("order_id")
        .orderBy("position")
        .execute();
      for (const row of rows) byOrder.set(row.order_id, [...(byOrder.get(row.order_id) ?? []), row]);
      return byOrder;
    },
    async list(
      storeId: string,
      plan: PagePlan,
      filter: { status?: OrderStatus | undefined; q?: string | undefined; customerId?: string | undefined },
      tx: Executor = db,
    ) {
      const { where, column, id, direction } = keyset(plan, "orders");
      let q = tx.selectFrom("orders").selectAll("orders").where("orders.store_id", "=", storeId);
      if (filter.status) q = q.where("orders.status", "=", filter.status);
      if (filter.customerId) q = q.where("orders.customer_id", "=", filter.customerId);
      if (filter.q) {
        // An order number ("1042" or "#1042"), or else text in the customer's e-mail address or
        // name, through the copy triggers keep on the order (migration 20261124_0010). Never both
        // in one OR: each alone has an index plan, an OR of them scans the store's orders.
        const text = filter.q.trim();
        const number = orderNumberOf(text);
        q =
          number !== null
            ? q.where("orders.number", "=", number)
            : q.where(sql<boolean>`orders.customer_text ILIKE ${containsPattern(text)}`);
      }
      for (const w of where) q = q.where(w);
      return q
        .orderBy(column, direction)
        .orderBy(id, direction)
        .limit(plan.limit + 1)
        .execute();
    },
    /** Takes `quantity` from an active product's stock; undefined when it is missing, inactive or short. */
    async takeStock(
      storeId: string,
      productId: string,
      quantity: number,
      now: Date,
      tx: Executor,
    ): Promise<Product | undefined> {
      return tx
        .updateTable("products")
        .set((eb) => ({ stock: eb("stock", "-", quantity), updated_at: now }))
        .where("store_id", "=", storeId)
        .where("id", "=", productId)
        .where("status", "=", ProductStatus.active)
        .where("stock", ">=", quantity)
        .returningAll()
        .executeTakeFirst();
    },
    async productAvailability(storeId: string, productId: string, tx: Executor = db) {
      return tx
        .selectFrom("products")
        .select(["status", "stock"])
        .where("store_id", "=", storeId)
        .where("id", "=", productId)
        .executeTakeFirst();
    },
    async returnStock(storeId: string, productId: string, quantity: number, now: Date, tx: Executor) {
      return tx
        .updateTable("products")
        .set((eb) => ({ stock: eb("stock", "+", quantity), updated_at: now }))
        .where("store_id", "=", storeId)
        .where("id", "=", productId)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
export type OrderRepo = ReturnType<typeof createOrderRepo>;
