import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { NewOrderEdit } from "../../db/schema.ts";
import { insertLines, jsonColumns, type LineItemRow, type OrderRow } from "../orders/orders-repo.ts";

/** An edit's row as the service builds it (its before and after as values; written as JSON). */
export type OrderEditRow = Omit<
  NewOrderEdit,
  | "line_items_before"
  | "line_items_after"
  | "codes_before"
  | "codes_after"
  | "shipping_before"
  | "shipping_after"
> & {
  line_items_before: unknown[];
  line_items_after: unknown[];
  codes_before: string[];
  codes_after: string[];
  shipping_before: unknown[];
  shipping_after: unknown[];
};

/** The columns an edit writes on the order: its money, where it holds stock, when it changed. */
export type EditedOrderColumns = Pick<
  OrderRow,
  | "subtotal_minor"
  | "discounts_minor"
  | "shipping_minor"
  | "tax_minor"
  | "tax_included_minor"
  | "total_minor"
  | "shipping_lines"
  | "discount_applications"
  | "tax_lines"
  | "location_id"
  | "updated_at"
>;

export function createOrderEditRepo(db: Executor) {
  return {
    async ofOrder(storeId: string, orderId: string, tx: Executor = db) {
      return tx
        .selectFrom("order_edits")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("order_id", "=", orderId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },
    async insert(row: OrderEditRow, tx: Executor) {
      return tx
        .insertInto("order_edits")
        .values({
          ...row,
          line_items_before: jsonb(row.line_items_before),
          line_items_after: jsonb(row.line_items_after),
          codes_before: jsonb(row.codes_before),
          codes_after: jsonb(row.codes_after),
          shipping_before: jsonb(row.shipping_before),
          shipping_after: jsonb(row.shipping_after),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /**
     * The order's lines become `lines`: kept lines keep their ids (their rows rewritten), removed
     * ones are deleted, added ones inserted. Safe because an edited order has no refunds and no
     * returns (nothing else names its lines).
     */
    async replaceLines(storeId: string, orderId: string, lines: LineItemRow[], tx: Executor) {
      await tx
        .deleteFrom("order_line_items")
        .where("store_id", "=", storeId)
        .where("order_id", "=", orderId)
        .execute();
      await insertLines(lines, tx);
    },
    /** What was received becomes the total: the difference an edit left is settled. */
    async settle(storeId: string, orderId: string, now: Date, tx: Executor) {
      return tx
        .updateTable("orders")
        .set({ received_minor: sql`total_minor`, updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", orderId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async updateOrder(storeId: string, orderId: string, columns: EditedOrderColumns, tx: Executor) {
      return tx
        .updateTable("orders")
        .set(jsonColumns(columns))
        .where("store_id", "=", storeId)
        .where("id", "=", orderId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  };
}
export type OrderEditRepo = ReturnType<typeof createOrderEditRepo>;
