import { createHash } from "node:crypto";
import {
  type AdminClient,
  type AdminPaths,
  type Components,
  PlatformError,
  unwrap,
} from "@merchant-platform/sdk";
import { hidden, html } from "./html.ts";
import { lineLabel } from "./lines.ts";

/**
 * Refunds with a preview: the page shows what `refunds/calculate` would return for the units
 * chosen, and its button records that refund (`write_orders`). A refund records money the
 * merchant's payment provider returned; it moves none itself.
 */
type Order = Components["schemas"]["Order"];
type Refund = Components["schemas"]["Refund"];
type RefundCalculation = Components["schemas"]["RefundCalculation"];
type RefundBody = NonNullable<
  AdminPaths["/api/v1/apps/api/orders/{id}/refunds"]["post"]["requestBody"]
>["content"]["application/json"];

/** The units of each line to refund, and whether the shipping goes back and the units into stock. */
export type RefundChoice = Required<Pick<RefundBody, "shipping" | "restock">> & {
  lineItems: Array<{ lineItemId: string; quantity: number }>;
};

/** Only these orders have money to give back (`calculate` answers 409 for the others). */
const REFUNDABLE: ReadonlySet<Order["financialStatus"]> = new Set(["paid", "partially_refunded"]);

/**
 * What the refund form asks for: `units.<line id>` units of each line (empty or 0: none), and the
 * `shipping` and `restock` boxes. Lines in id order, so one choice is always one request body.
 */
export function refundChoiceOf(form: URLSearchParams): RefundChoice {
  const lineItems: RefundChoice["lineItems"] = [];
  for (const [name, value] of form) {
    if (!name.startsWith("units.") || value.trim() === "" || value.trim() === "0") continue;
    if (!/^\d{1,5}$/.test(value.trim())) throw new Error(`Not a number of units: ${value}`);
    lineItems.push({ lineItemId: name.slice("units.".length), quantity: Number(value.trim()) });
  }
  if (lineItems.length > 100) throw new Error("At most 100 lines in one refund.");
  lineItems.sort((a, b) => (a.lineItemId < b.lineItemId ? -1 : a.lineItemId > b.lineItemId ? 1 : 0));
  return { lineItems, shipping: form.get("shipping") === "on", restock: form.get("restock") === "on" };
}

/**
 * The refund's Idempotency-Key, derived from the request instead of drawn at random: the store,
 * the order, the units chosen and the order as the preview read it (`updatedAt`). A double click
 * (or a reload of the answer) sends the same key and the platform records one refund and replays
 * it; the next refund of the same units starts from another preview of an order that the first
 * refund changed, so it gets a key of its own.
 */
export function refundKey(slug: string, orderId: string, choice: RefundChoice, seen: string): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([slug, orderId, seen, choice]))
    .digest("hex");
  return `sample-refund-${digest}`;
}

export function calculateRefund(admin: AdminClient, orderId: string, choice: RefundChoice) {
  return unwrap(
    admin.POST("/api/v1/apps/api/orders/{id}/refunds/calculate", {
      params: { path: { id: orderId } },
      body: choice,
    }),
  );
}

/** Records the refund the preview showed; with the same `key`, at most once. */
export async function recordRefund(
  admin: AdminClient,
  orderId: string,
  choice: RefundChoice,
  key: string,
): Promise<Refund> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await unwrap(
        admin.POST("/api/v1/apps/api/orders/{id}/refunds", {
          params: { path: { id: orderId }, header: { "idempotency-key": key } },
          body: choice,
        }),
      );
    } catch (error) {
      // The other click of a double click is still being recorded: once it is, this one gets its
      // answer replayed (the SDK retries 429s and 5xx, not this 409).
      if (!(error instanceof PlatformError && error.code === "IDEMPOTENCY_KEY_IN_USE") || attempt === 5)
        throw error;
      await new Promise((r) => setTimeout(r, Math.min(2, error.retryAfterSeconds ?? 1) * 1000));
    }
  }
}

export function listRefunds(admin: AdminClient, orderId: string) {
  return unwrap(admin.GET("/api/v1/apps/api/orders/{id}/refunds", { params: { path: { id: orderId } } }));
}

/**
 * The refund page of an order: its money, a form to choose units (it previews, with GET), the
 * preview with its button (POST /refunds), and the refunds recorded so far.
 */
export function refundPage(input: {
  slug: string;
  order: Order;
  choice: RefundChoice;
  preview: RefundCalculation | PlatformError | null;
  refunds: Refund[];
}): string {
  const { slug, order, choice, preview, refunds } = input;
  const money = (amount: string) => `${html(amount)} ${html(order.currency)}`;
  const chosen = new Map(choice.lineItems.map((l) => [l.lineItemId, l.quantity]));
  const labels = new Map(order.lineItems.map((l) => [l.id, lineLabel(l)]));
  const summary = `<p>${html(order.name)}: ${html(order.status)}, <b>${html(order.financialStatus)}</b>. Total ${money(order.total)}, refunded ${money(order.refunded)}, net ${money(order.net)}.</p>`;
  const form = REFUNDABLE.has(order.financialStatus)
    ? `<form method="get" action="/refund">${hidden({ store: slug, order: order.id })}
<table><tr><th>Line</th><th>Sold</th><th>Refunded</th><th>Units to refund</th></tr>${order.lineItems
        .map(
          (l) =>
            `<tr><td>${html(lineLabel(l))}</td><td>${l.quantity}</td><td>${l.refundedQuantity}</td><td><input type="number" name="units.${html(l.id)}" min="0" max="${l.quantity - l.refundedQuantity}" value="${chosen.get(l.id) ?? 0}" aria-label="Units of ${html(lineLabel(l))}"></td></tr>`,
        )
        .join("")}</table>
<p><label><input type="checkbox" name="shipping"${choice.shipping ? " checked" : ""}> Refund the shipping</label> <label><input type="checkbox" name="restock"${choice.restock ? " checked" : ""}> Put the units back into stock</label> <button>Preview refund</button></p></form>`
    : `<p>Nothing to refund: the order is ${html(order.financialStatus)}.</p>`;
  let shown = "";
  if (preview instanceof PlatformError)
    shown = `<p><b>${html(preview.code)}</b>: ${html(preview.message)}</p>`;
  else if (preview)
    shown = `<h2>Refund preview</h2>
<table><tr><th>Line</th><th>Units</th><th>Subtotal</th><th>Discount</th><th>Tax</th><th>Returned</th></tr>${preview.lineItems
      .map(
        (l) =>
          `<tr><td>${html(labels.get(l.lineItemId) ?? l.lineItemId)}${l.restock ? " <small>(restocked)</small>" : ""}</td><td>${l.quantity}</td><td>${money(l.subtotal)}</td><td>−${money(l.discount)}</td><td>${money(l.tax)}</td><td>${money(l.amount)}</td></tr>`,
      )
      .join("")}
<tr><td colspan="5">Shipping (its tax included)</td><td>${money(preview.shipping)}</td></tr>
<tr><th colspan="5">In all (tax ${money(preview.tax)})</th><th>${money(preview.amount)}</th></tr></table>
<p>The order can return ${money(preview.refundable)} in all before this refund.</p>
<form method="post" action="/refunds">${hidden({
      store: slug,
      order: order.id,
      seen: order.updatedAt,
      ...Object.fromEntries(choice.lineItems.map((l) => [`units.${l.lineItemId}`, String(l.quantity)])),
      ...(choice.shipping ? { shipping: "on" } : {}),
      ...(choice.restock ? { restock: "on" } : {}),
    })}<button>Record the refund of ${money(preview.amount)}</button></form>`;
  const recorded = refunds
    .map(
      (r) =>
        `<tr><td><code>${html(r.id)}</code></td><td>${html(r.createdAt)}</td><td>${html(r.lineItems.map((l) => `${l.quantity} × ${labels.get(l.lineItemId) ?? l.lineItemId}`).join(", ") || "shipping only")}</td><td>${money(r.amount)}</td></tr>`,
    )
    .join("");
  return `<p><a href="/">Back</a></p>${summary}${form}${shown}
<h2>Refunds recorded</h2>
<table><tr><th>Refund</th><th>At</th><th>Units</th><th>Amount</th></tr>${recorded || '<tr><td colspan="4">None.</td></tr>'}</table>`;
}
