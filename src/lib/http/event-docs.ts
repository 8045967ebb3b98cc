import {
  type EventName,
  ORDER_STATUS_NAMES,
  ORDER_STATUSES,
  type OrderStatus,
} from "../../contracts/index.ts";

/**
 * Route descriptions that say which events a route emits, in words taken from the contract
 * (events.ts, statuses.ts): a renamed event or a changed transition changes the documentation too.
 */

/** An event's name as the documentation quotes it: `order.paid`. */
export function eventName(name: EventName): string {
  return `\`${name}\``;
}

/** `a`, `a` or `b`, `a`, `b` or `c` (with `and`, for `joiner` "and"). */
function list(items: readonly string[], joiner: "or" | "and"): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${joiner} ${items.at(-1)}`;
}

/**
 * The order statuses' moves and the events they emit: "From `pending`: `paid` or `cancelled`; …
 * `delivered` and `cancelled` are final. Each move emits the new status's event: `order.paid`, …".
 */
export function orderMovesInWords(): string {
  const quote = (status: OrderStatus) => `\`${status}\``;
  const moving = ORDER_STATUS_NAMES.filter((s) => ORDER_STATUSES[s].next.length > 0);
  const final = ORDER_STATUS_NAMES.filter((s) => ORDER_STATUSES[s].next.length === 0);
  const reached = ORDER_STATUS_NAMES.filter((s) =>
    moving.some((from) => (ORDER_STATUSES[from].next as readonly OrderStatus[]).includes(s)),
  );
  const moves = moving
    .map((from) => `from ${quote(from)}: ${list(ORDER_STATUSES[from].next.map(quote), "or")}`)
    .join("; ");
  return `${moves.charAt(0).toUpperCase()}${moves.slice(1)}. ${list(final.map(quote), "and")} ${final.length > 1 ? "are" : "is"} final. Each move emits the new status's event: ${list(
    reached.map((s) => eventName(ORDER_STATUSES[s].event)),
    "and",
  )}.`;
}
