import type { OrderStatus } from "../../db/schema.ts";

/**
 * The order life cycle: pending -> paid -> confirmed -> shipped -> delivered, one step at a time;
 * cancelled from any state before shipped. Delivered and cancelled are final.
 */
const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ["paid", "cancelled"],
  paid: ["confirmed", "cancelled"],
  confirmed: ["shipped", "cancelled"],
  shipped: ["delivered"],
  delivered: [],
  cancelled: [],
};

export const ORDER_STATUSES = Object.keys(NEXT) as OrderStatus[];

export function allowedTransitions(from: OrderStatus): readonly OrderStatus[] {
  return NEXT[from];
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}
