import { sql } from "kysely";
import { type ActorKind, FinancialStatus, type OrderStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type {
  AddressJson,
  AppMetadataJson,
  DiscountApplicationJson,
  DiscountShareJson,
  FulfillmentJson,
  Order,
  OrderLineItem,
  ShippingLineJson,
  TaxLineJson,
} from "../../db/schema.ts";
import { storeTable } from "../../db/store-table.ts";
import { containsPattern, keysetPage, type PagePlan } from "../../lib/pagination.ts";

/**
 * The order number a search text names ("1042", "#1042", or with the store's own prefix: "SO-1042"),
 * or null when it is other text.
 */
export function orderNumberOf(text: string, prefix = ""): number | null {
  const rest =
    prefix && text.toLowerCase().startsWith(prefix.toLowerCase()) ? text.slice(prefix.length) : text;
  return /^#?\d{1,15}$/.test(rest) ? Number(rest.replace("#", "")) : null;
}

/**
 * An order's row as the service builds it (JSON columns as values; the repo writes them as JSON;
 * customer_text is the triggers').
 */
export type OrderRow = Omit<
  Order,
  | "shipping_address"
  | "fulfillment"
  | "tags"
  | "metadata"
  | "customer_text"
  | "shipping_lines"
  | "discount_applications"
  | "tax_lines"
> & {
  shipping_address: AddressJson | null;
  fulfillment: FulfillmentJson | null;
  tags: string[];
  metadata: AppMetadataJson;
  shipping_lines: ShippingLineJson[];
  discount_applications: DiscountApplicationJson[];
  tax_lines: TaxLineJson[];
};

/** Columns a change of an order's details may set. */
export type OrderChanges = Partial<Pick<OrderRow, "note" | "tags" | "shipping_address" | "metadata">> & {
  updated_at: Date;
};

export function jsonColumns<
  T extends {
    shipping_address?: AddressJson | null;
    fulfillment?: FulfillmentJson | null;
    tags?: string[];
    metadata?: AppMetadataJson;
    shipping_lines?: ShippingLineJson[];
    discount_applications?: DiscountApplicationJson[];
    tax_lines?: TaxLineJson[];
  },
>(row: T) {
  const {
    shipping_address,
    fulfillment,
    tags,
    metadata,
    shipping_lines,
    discount_applications,
    tax_lines,
    ...rest
  } = row;
  const json = (v: unknown) => (v === null ? null : jsonb(v));
  return {
    ...rest,
    ...(shipping_address !== undefined ? { shipping_address: json(shipping_address) } : {}),
    ...(fulfillment !== undefined ? { fulfillment: json(fulfillment) } : {}),
    ...(tags !== undefined ? { tags: jsonb(tags) } : {}),
    ...(metadata !== undefined ? { metadata: jsonb(metadata) } : {}),
    ...(shipping_lines !== undefined ? { shipping_lines: jsonb(shipping_lines) } : {}),
    ...(discount_applications !== undefined ? { discount_applications: jsonb(discount_applications) } : {}),
    ...(tax_lines !== undefined ? { tax_lines: jsonb(tax_lines) } : {}),
  };
}

/** A line item's row as the service builds it (its shares as values; the repo writes them as JSON). */
export type LineItemRow = Omit<OrderLineItem, "discount_allocations" | "tax_lines"> & {
  discount_allocations: DiscountShareJson[];
  tax_lines: TaxLineJson[];
};

/** Writes line items (their shares as JSON): an order's at its placing, and an edit's. */
export async function insertLines(items: LineItemRow[], tx: Executor) {
  if (items.length === 0) return;
  await tx
    .insertInto("order_line_items")
    .values(
      items.map((li) => ({
        ...li,
        discount_allocations: jsonb(li.discount_allocations),
        tax_lines: jsonb(li.tax_lines),
      })),
    )
    .execute();
}

/** Who changed an order: a merchant's account, an app, or the platform itself. */
export interface Actor {
  kind: ActorKind;
  id: string | null;
  name: string;
}

export function createOrderRepo(db: Executor) {
  return {
    ...storeTable(db, "orders"),
    async insert(order: OrderRow, items: LineItemRow[], tx: Executor) {
      const row = await tx
        .insertInto("orders")
        .values(jsonColumns(order))
        .returningAll()
        .executeTakeFirstOrThrow();
      await insertLines(items, tx);
      return row;
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
    /** Moves the order to `status`; `fulfillment` (when given) is recorded with it. */
    async setStatus(
      storeId: string,
      id: string,
      status: OrderStatus,
      fulfillment: FulfillmentJson | undefined,
      now: Date,
      tx: Executor,
      financialStatus?: FinancialStatus,
    ) {
      return (
        tx
          .updateTable("orders")
          .set(
            jsonColumns({
              status,
              updated_at: now,
              ...(fulfillment ? { fulfillment } : {}),
              ...(financialStatus ? { financial_status: financialStatus } : {}),
            }),
          )
          // Marked paid: the money received is the total.
          .$if(financialStatus === FinancialStatus.paid, (q) => q.set({ received_minor: sql`total_minor` }))
          .where("store_id", "=", storeId)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow()
      );
    },
    async update(storeId: string, id: string, changes: OrderChanges, tx: Executor) {
      return tx
        .updateTable("orders")
        .set(jsonColumns(changes))
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /**
     * A customer's orders, locked for their erasure: a status change or an edit in flight commits
     * first (and its event is then erased too), one that comes later sees the erased details.
     */
    async lockOfCustomer(storeId: string, customerId: string, tx: Executor) {
      return tx
        .selectFrom("orders")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("customer_id", "=", customerId)
        .orderBy("id")
        .forUpdate()
        .execute();
    },
    /** Writes the erased details of orders (see erasedOrderDetails), any number in one statement. */
    /** Blanks the notes of the orders' refunds (written about the sale, often about the person). */
    /**
     * The notes written about the orders' refunds, returns and edits (often about the person:
     * "left with her neighbour"), erased with their customer as contracts/erasure.ts says.
     */
    async eraseNotes(storeId: string, orderIds: readonly string[], tx: Executor) {
      if (orderIds.length === 0) return;
      for (const table of ["refunds", "returns", "order_edits"] as const)
        await tx
          .updateTable(table)
          .set({ note: "" })
          .where("store_id", "=", storeId)
          .where("order_id", "in", orderIds as string[])
          .execute();
    },
    async setErasedDetails(
      storeId: string,
      orders: ReadonlyArray<{
        id: string;
        shipping_address: AddressJson | null;
        note: string;
        fulfillment: FulfillmentJson | null;
      }>,
      now: Date,
      tx: Executor,
    ) {
      if (orders.length === 0) return;
      const col = (f: (o: (typeof orders)[number]) => string | null) => orders.map(f) as unknown as string;
      const json = (v: unknown) => (v === null ? null : jsonb(v));
      await sql`
        UPDATE orders o
           SET shipping_address = v.shipping_address::jsonb, note = v.note,
               fulfillment = v.fulfillment::jsonb, updated_at = ${now}
          FROM unnest(${col((o) => o.id)}::text[], ${col((o) => json(o.shipping_address))}::text[],
                      ${col((o) => o.note)}::text[], ${col((o) => json(o.fulfillment))}::text[])
               AS v(id, shipping_address, note, fulfillment)
         WHERE o.store_id = ${storeId} AND o.id = v.id`.execute(tx);
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
      filter: {
        status?: OrderStatus | undefined;
        q?: string | undefined;
        customerId?: string | undefined;
        prefix?: string | undefined;
      },
      tx: Executor = db,
    ) {
      let q = tx.selectFrom("orders").selectAll("orders").where("orders.store_id", "=", storeId);
      if (filter.status) q = q.where("orders.status", "=", filter.status);
      if (filter.customerId) q = q.where("orders.customer_id", "=", filter.customerId);
      if (filter.q) {
        // An order number ("1042" or "#1042"), or else text in the customer's e-mail address or
        // name, through the copy triggers keep on the order (migration 20261124_0010). Never both
        // in one OR: each alone has an index plan, an OR of them scans the store's orders.
        const text = filter.q.trim();
        const number = orderNumberOf(text, filter.prefix);
        q =
          number !== null
            ? q.where("orders.number", "=", number)
            : q.where(sql<boolean>`orders.customer_text ILIKE ${containsPattern(text)}`);
      }
      return keysetPage(q, plan, "orders").execute();
    },
    /** The order's lines no longer hold committed stock (it shipped, or was cancelled). */
    async releaseLines(storeId: string, orderId: string, tx: Executor) {
      await tx
        .updateTable("order_line_items")
        .set({ committed: false })
        .where("store_id", "=", storeId)
        .where("order_id", "=", orderId)
        .where("committed", "=", true)
        .execute();
    },
  };
}
export type OrderRepo = ReturnType<typeof createOrderRepo>;
