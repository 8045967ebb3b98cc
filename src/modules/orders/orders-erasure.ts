import type { Executor } from "../../db/client.ts";
import type { OrderRepo } from "./orders-repo.ts";
import { erasedOrderDetails } from "./orders-schemas.ts";

/**
 * The orders' part of erasing a customer (customers-service.ts `remove`): the customer's orders
 * keep what the merchant's accounting needs and lose what names the person (contracts/erasure.ts).
 */
export function createOrderErasure(
  repo: Pick<OrderRepo, "lockOfCustomer" | "setErasedDetails" | "eraseNotes">,
) {
  return {
    /**
     * Locks the customer's orders and writes their erased details, in the caller's transaction;
     * answers their ids, oldest first (as `customer.redact` names them), none for a customer
     * without orders. Call it after locking the customer's row: an order being placed for them
     * holds that row until it commits, so every order of theirs is here.
     */
    async ofCustomer(tx: Executor, storeId: string, customerId: string, now: Date): Promise<string[]> {
      const orders = await repo.lockOfCustomer(storeId, customerId, tx);
      await repo.setErasedDetails(storeId, orders.map(erasedOrderDetails), now, tx);
      await repo.eraseNotes(
        storeId,
        orders.map((o) => o.id),
        tx,
      );
      return orders
        .toSorted((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1))
        .map((o) => o.id);
    },
  };
}
export type OrderErasure = ReturnType<typeof createOrderErasure>;
