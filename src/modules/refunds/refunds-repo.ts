import { sql } from "kysely";
import type { ActorKind, FinancialStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { RefundView } from "./refunds-schemas.ts";

/** Refunds (issue 31, part 3): their rows, and the order's and lines' refunded figures. */
export function createRefundRepo(db: Executor) {
  return {
    async insert(
      row: RefundView & { storeId: string; orderId: string; actor: { kind: ActorKind; id: string | null } },
      tx: Executor,
    ) {
      await tx
        .insertInto("refunds")
        .values({
          store_id: row.storeId,
          id: row.id,
          order_id: row.orderId,
          note: row.note,
          location_id: row.locationId,
          amount_minor: row.amountMinor,
          shipping_minor: row.shippingMinor,
          tax_minor: row.taxMinor,
          actor_kind: row.actor.kind,
          actor_id: row.actor.id,
          created_at: row.createdAt,
        })
        .execute();
      if (row.lines.length)
        await tx
          .insertInto("refund_line_items")
          .values(
            row.lines.map((l) => ({
              store_id: row.storeId,
              refund_id: row.id,
              line_item_id: l.lineItemId,
              quantity: l.quantity,
              subtotal_minor: l.subtotalMinor,
              discount_minor: l.discountMinor,
              tax_minor: l.taxMinor,
              amount_minor: l.amountMinor,
              restocked: l.restock,
            })),
          )
          .execute();
    },
    /**
     * Counts refunded (and released) units on a line; false when fewer are left than asked. The
     * check and the write are one statement, under the order's row lock the caller holds.
     */
    async refundUnits(storeId: string, lineItemId: string, quantity: number, released: number, tx: Executor) {
      const row = await tx
        .updateTable("order_line_items")
        .set({
          refunded_quantity: sql`refunded_quantity + ${quantity}`,
          restocked_quantity: sql`restocked_quantity + ${released}`,
        })
        .where("store_id", "=", storeId)
        .where("id", "=", lineItemId)
        .where(sql<boolean>`refunded_quantity + ${quantity} <= quantity`)
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },
    /** Adds a refund to the order's figures and sets its financial status. */
    async addToOrder(
      storeId: string,
      orderId: string,
      change: { amount: number; shipping: number; status: FinancialStatus; now: Date },
      tx: Executor,
    ) {
      return tx
        .updateTable("orders")
        .set({
          refunded_minor: sql`refunded_minor + ${change.amount}`,
          shipping_refunded_minor: sql`shipping_refunded_minor + ${change.shipping}`,
          financial_status: change.status,
          updated_at: change.now,
        })
        .where("store_id", "=", storeId)
        .where("id", "=", orderId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async ofOrder(storeId: string, orderId: string, tx: Executor = db): Promise<RefundView[]> {
      const refunds = await tx
        .selectFrom("refunds")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("order_id", "=", orderId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      if (refunds.length === 0) return [];
      const lines = await tx
        .selectFrom("refund_line_items")
        .selectAll()
        .where("store_id", "=", storeId)
        .where(
          "refund_id",
          "in",
          refunds.map((r) => r.id),
        )
        .execute();
      return refunds.map((r) => ({
        id: r.id,
        note: r.note,
        locationId: r.location_id,
        shippingMinor: r.shipping_minor,
        taxMinor: r.tax_minor,
        amountMinor: r.amount_minor,
        createdAt: r.created_at,
        lines: lines
          .filter((l) => l.refund_id === r.id)
          .map((l) => ({
            lineItemId: l.line_item_id,
            quantity: l.quantity,
            subtotalMinor: l.subtotal_minor,
            discountMinor: l.discount_minor,
            taxMinor: l.tax_minor,
            amountMinor: l.amount_minor,
            restock: l.restocked,
          })),
      }));
    },
  };
}
export type RefundRepo = ReturnType<typeof createRefundRepo>;
