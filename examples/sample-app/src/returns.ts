import { type AdminClient, type Components, unwrap } from "@merchant-platform/sdk";
import { hidden, html } from "./html.ts";
import { lineLabel } from "./lines.ts";

/**
 * The returns desk: units of a shipped order come back with a reason, and the return moves along
 * (approved or declined, received with or without restocking, closed with a refund) through the
 * Admin API under `write_returns`; each step is also an event (`return.*`, under `read_returns`).
 */
export type Return = Components["schemas"]["Return"];
export type ReturnStatus = Return["status"];
export type ReturnReason = Return["lineItems"][number]["reason"];
type Order = Components["schemas"]["Order"];

/**
 * The reasons the API takes, each as a merchant reads it. The keys are the document's list: a
 * reason added to (or taken from) the API fails the type check here until this list follows.
 */
export const REASONS = {
  unwanted: "No longer wanted",
  wrong_item: "Wrong item sent",
  not_as_described: "Not as described",
  defective: "Defective",
  damaged_in_transit: "Damaged in transit",
  size_too_small: "Too small",
  size_too_large: "Too large",
  other: "Other",
} as const satisfies Record<ReturnReason, string>;

export function isReason(value: string): value is ReturnReason {
  return Object.hasOwn(REASONS, value);
}

type ReturnStep = "approve" | "decline" | "receive" | "close";
/**
 * The buttons a return shows in each status. The API states the moves only in prose (the Return
 * schema's `status`: requested → approved or declined; approved → received, or closed when nothing
 * comes back; received → closed) and answers any other move with a 409 naming the allowed ones, so
 * the app restates them here, keyed by the document's statuses: a new status fails the type check.
 */
export const NEXT_STEPS = {
  requested: ["approve", "decline"],
  approved: ["receive", "close"],
  received: ["close"],
  declined: [],
  closed: [],
} as const satisfies Record<ReturnStatus, readonly ReturnStep[]>;

/** A shipped order as the desk offers it: its lines, each as a packer reads it. */
export interface ShippedOrder {
  id: string;
  name: string;
  lines: Array<{ id: string; label: string; quantity: number }>;
}

export function shippedOrderOf(order: Pick<Order, "id" | "name" | "lineItems">): ShippedOrder {
  return {
    id: order.id,
    name: order.name,
    lines: order.lineItems.map((l) => ({ id: l.id, label: lineLabel(l), quantity: l.quantity })),
  };
}

/** The newest shipped and delivered orders, read through the Admin API (for an app that missed their events). */
export async function recentShippedOrders(admin: AdminClient, limit = 25): Promise<Order[]> {
  const lists = await Promise.all(
    (["shipped", "delivered"] as const).map((status) =>
      unwrap(
        admin.GET("/api/v1/apps/api/orders", { params: { query: { status, limit, sort: "-updatedAt" } } }),
      ),
    ),
  );
  return lists.flat();
}

/** Units of one line of a shipped order coming back, with why: a `requested` return. */
export function requestReturn(
  admin: AdminClient,
  orderId: string,
  line: { lineItemId: string; quantity: number; reason: ReturnReason },
  note: string,
) {
  return unwrap(
    admin.POST("/api/v1/apps/api/orders/{id}/returns", {
      params: { path: { id: orderId } },
      body: { lineItems: [line], ...(note ? { note } : {}) },
    }),
  );
}

export function approveReturn(admin: AdminClient, returnId: string) {
  return unwrap(admin.POST("/api/v1/apps/api/returns/{id}/approve", { params: { path: { id: returnId } } }));
}

export function declineReturn(admin: AdminClient, returnId: string) {
  return unwrap(admin.POST("/api/v1/apps/api/returns/{id}/decline", { params: { path: { id: returnId } } }));
}

/** The units arrived; back into stock at the order's location unless `restock` is false. */
export function receiveReturn(admin: AdminClient, returnId: string, restock: boolean) {
  return unwrap(
    admin.POST("/api/v1/apps/api/returns/{id}/receive", {
      params: { path: { id: returnId } },
      body: { restock },
    }),
  );
}

/** Closes it; with `refund` the returned units are refunded and the refund linked as `refundId`. */
export function closeReturn(admin: AdminClient, returnId: string, refund: boolean, shipping: boolean) {
  return unwrap(
    admin.POST("/api/v1/apps/api/returns/{id}/close", {
      params: { path: { id: returnId } },
      body: { refund, shipping },
    }),
  );
}

/**
 * Keeps `next` among a store's returns: the newer of what is kept and what arrived, by `updatedAt`
 * (an event can arrive after the answer of a later step, or late after a retry).
 */
export function remember(returns: Return[], next: Return): Return[] {
  const kept = returns.find((r) => r.id === next.id);
  if (kept && kept.updatedAt > next.updatedAt) return returns;
  return [...returns.filter((r) => r.id !== next.id), next].slice(-200);
}

/** A return's lines as the desk reads them: `1 × Mug [MUG-12] (Defective)`. */
export function returnLines(r: Return, orders: readonly ShippedOrder[]): string {
  const labels = new Map(orders.flatMap((o) => o.lines.map((l) => [l.id, l.label] as const)));
  return r.lineItems
    .map((l) => {
      return `${l.quantity} × ${labels.get(l.lineItemId) ?? l.lineItemId} (${REASONS[l.reason]})`;
    })
    .join(", ");
}

const STEP_FORMS: Record<ReturnStep, (store: string, id: string) => string> = {
  approve: (store, id) =>
    `<form class="inline" method="post" action="/returns/approve">${hidden({ store, return: id })}<button>Approve</button></form>`,
  decline: (store, id) =>
    `<form class="inline" method="post" action="/returns/decline">${hidden({ store, return: id })}<button>Decline</button></form>`,
  receive: (store, id) =>
    `<form class="inline" method="post" action="/returns/receive">${hidden({ store, return: id })}<label><input type="checkbox" name="restock" checked> restock</label> <button>Received</button></form>`,
  close: (store, id) =>
    `<form class="inline" method="post" action="/returns/close">${hidden({ store, return: id })}<label><input type="checkbox" name="refund" checked> refund the units</label> <label><input type="checkbox" name="shipping"> and the shipping</label> <button>Close</button></form>`,
};

/** The desk on `/`: a request form per shipped order, then the returns with their next steps. */
export function returnsDesk(stores: Array<{ slug: string; shipped: ShippedOrder[]; returns: Return[] }>): {
  body: string;
  forms: number;
} {
  const reasons = Object.entries(REASONS)
    .map(([value, label]) => `<option value="${html(value)}">${html(label)}</option>`)
    .join("");
  const requestRows = stores.flatMap(({ slug, shipped }) =>
    shipped.map(
      (o) =>
        `<tr><td>${html(slug)}</td><td>${html(o.name)}</td><td><form method="post" action="/returns">${hidden({ store: slug, order: o.id })}<select name="line" aria-label="Line">${o.lines.map((l) => `<option value="${html(l.id)}">${html(`${l.label}, ${l.quantity} sold`)}</option>`).join("")}</select> <input name="quantity" type="number" min="1" value="1" size="3" aria-label="Units"> <select name="reason" aria-label="Reason">${reasons}</select> <input name="note" placeholder="Note (optional)" maxlength="2000"> <button>Request return</button></form> <a href="/refund?${new URLSearchParams({ store: slug, order: o.id })}">Refund…</a></td></tr>`,
    ),
  );
  const returnRows = stores.flatMap(({ slug, shipped, returns }) =>
    [...returns].reverse().map((r) => {
      const order = shipped.find((o) => o.id === r.orderId)?.name ?? r.orderId;
      const steps = NEXT_STEPS[r.status].map((step) => STEP_FORMS[step](slug, r.id)).join(" ");
      const refund = r.refundId ? ` <small>refund <code>${html(r.refundId)}</code></small>` : "";
      const restocked = r.receivedAt ? ` <small>${r.locationId ? "restocked" : "not restocked"}</small>` : "";
      return `<tr><td>${html(slug)}</td><td>${html(order)}</td><td>${html(returnLines(r, shipped))}${r.note ? `<br><small>${html(r.note)}</small>` : ""}</td><td><b>${html(r.status)}</b>${restocked}${refund}</td><td>${steps}</td></tr>`;
    }),
  );
  return {
    forms: requestRows.length + returnRows.length,
    body: `<h2>Returns desk</h2>
<p>Shipped and delivered orders arrive with their events; an app that missed them reads them again:</p>
${stores.map(({ slug }) => `<form class="inline" method="post" action="/shipped/load">${hidden({ store: slug })}<button>Load shipped orders of ${html(slug)}</button></form>`).join(" ")}
<table><tr><th>Store</th><th>Shipped order</th><th></th></tr>${requestRows.join("") || '<tr><td colspan="3">None: orders appear here when they are shipped.</td></tr>'}</table>
<h3>Returns</h3>
<table><tr><th>Store</th><th>Order</th><th>Coming back</th><th>Status</th><th>Next</th></tr>${returnRows.join("") || '<tr><td colspan="5">None yet.</td></tr>'}</table>`,
  };
}
