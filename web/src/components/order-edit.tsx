import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { Order, OrderEditPreview } from "../api/types.ts";
import { MAX_SHIPPING_LINES, UNFULFILLED_ORDER_STATUSES } from "../contract.ts";
import { money } from "../lib/format.ts";
import { useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { type Choice, ProductPicker } from "./product-picker.tsx";
import { Field, FormActions, FormAlert, Modal, useNotify, useSubmit } from "./ui.tsx";

/** Whether an order can still be edited: not yet shipped or cancelled, and nothing refunded. */
export const canEdit = (o: Order) =>
  (UNFULFILLED_ORDER_STATUSES as readonly string[]).includes(o.status) && Number(o.refunded) === 0;

interface ShippingDraft {
  title: string;
  price: string;
}

/**
 * The order edit dialog (issue 31, part 5): quantities (0 removes a line), products added, the
 * discount codes and the shipping lines; the server's preview (the new totals and the difference)
 * is shown before anything is saved, and the edit is saved only as previewed, on the order as it
 * was read (`expectedUpdatedAt`: a change made meanwhile is refused, not overwritten).
 */
export function EditOrderDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const slug = useSlug();
  const [quantities, setQuantities] = useState<Record<string, string>>(
    Object.fromEntries(order.lineItems.map((li) => [li.id, String(li.quantity)])),
  );
  const [added, setAdded] = useState<Array<Choice & { quantity: string }>>([]);
  const [codes, setCodes] = useState(order.discountApplications.map((d) => d.code).join(", "));
  const [shipping, setShipping] = useState<ShippingDraft[]>(
    order.shippingLines.map((s) => ({ title: s.title, price: s.price })),
  );
  const [note, setNote] = useState("");
  const [picking, setPicking] = useState(false);
  const [preview, setPreview] = useState<OrderEditPreview | null>(null);
  const [key, answered] = useIdempotencyKey();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "The edit failed.", answered });
  const m = (amount: string) => money(amount, order.currency);
  const path = { slug, id: order.id };
  const change = (update: () => void) => {
    update();
    setPreview(null);
  };

  const codeList = codes
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const sameCodes =
    codeList.length === order.discountApplications.length &&
    codeList.every((c, i) => c.toLowerCase() === order.discountApplications[i]!.code.toLowerCase());
  const sameShipping =
    shipping.length === order.shippingLines.length &&
    shipping.every(
      (s, i) =>
        s.title === order.shippingLines[i]!.title &&
        Number(s.price) === Number(order.shippingLines[i]!.price),
    );
  const body = {
    ...(() => {
      const changed = order.lineItems
        .filter((li) => Number(quantities[li.id]) !== li.quantity)
        .map((li) => ({ lineItemId: li.id, quantity: Number(quantities[li.id]) }));
      return changed.length ? { lineItems: changed } : {};
    })(),
    ...(added.length
      ? { addLineItems: added.map((a) => ({ variantId: a.variant.id, quantity: Number(a.quantity) })) }
      : {}),
    ...(sameCodes ? {} : { discountCodes: codeList }),
    ...(sameShipping
      ? {}
      : { shippingLines: shipping.map((s) => ({ title: s.title.trim(), price: s.price.trim() })) }),
  };
  const check = () => {
    const invalid: Array<{ field: string; message: string }> = [];
    order.lineItems.forEach((li, i) => {
      const q = Number(quantities[li.id]);
      if (!Number.isInteger(q) || q < 0)
        invalid.push({ field: `lineItems.${i}.quantity`, message: "0 or more" });
    });
    added.forEach((a, i) => {
      const q = Number(a.quantity);
      if (!Number.isInteger(q) || q < 1)
        invalid.push({ field: `addLineItems.${i}.quantity`, message: "1 or more" });
    });
    shipping.forEach((s, i) => {
      if (!s.title.trim()) invalid.push({ field: `shippingLines.${i}.title`, message: "name it" });
      if (!/^\d+(\.\d+)?$/.test(s.price.trim()))
        invalid.push({ field: `shippingLines.${i}.price`, message: "an amount, like 4.95" });
    });
    if (invalid.length === 0 && Object.keys(body).length === 0)
      invalid.push({ field: "lineItems", message: "Change something first." });
    return invalid;
  };

  const calculate = handle(check, async () => {
    setPreview(
      (
        await unwrap<OrderEditPreview>(
          api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits/preview", {
            params: { path },
            body: { ...body, expectedUpdatedAt: order.updatedAt },
          }),
        )
      ).data,
    );
  });
  const save = handle(
    () => [],
    async () => {
      const edit = await unwrap<{ totalAfter: string }>(
        api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
          params: { path },
          body: {
            ...body,
            expectedUpdatedAt: order.updatedAt,
            ...(note.trim() ? { note: note.trim() } : {}),
          },
          headers: { "idempotency-key": key },
        }),
      );
      notify(`Order ${order.name} edited: total ${m(edit.data.totalAfter)}`);
      await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
      await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
      await queryClient.invalidateQueries({ queryKey: ["products", slug] });
      onClose();
    },
  );

  const difference = preview ? Number(preview.difference) : 0;
  return (
    <Modal title={`Edit order ${order.name}`} onClose={onClose} wide>
      <form className="form stack" onSubmit={preview ? save : calculate} noValidate>
        <FormAlert message={errors.message ?? errors.of("lineItems")} />
        <fieldset className="stack">
          <legend>Items (0 removes an item)</legend>
          {order.lineItems.map((li, i) => (
            <Field
              key={li.id}
              label={`${li.title}${li.variantTitle && li.variantTitle !== "Default" ? ` — ${li.variantTitle}` : ""} (${m(li.unitPrice)} each)`}
              error={errors.of(`lineItems.${i}.quantity`)}
            >
              {({ id, describedBy }) => (
                <input
                  id={id}
                  type="number"
                  min={0}
                  aria-describedby={describedBy}
                  value={quantities[li.id] ?? ""}
                  onChange={(e) => change(() => setQuantities({ ...quantities, [li.id]: e.target.value }))}
                />
              )}
            </Field>
          ))}
          {added.map((a, i) => (
            <Field
              key={a.variant.id}
              label={`${a.name} (added, ${money(a.variant.price, order.currency)} each)`}
              error={errors.of(`addLineItems.${i}.quantity`)}
            >
              {({ id, describedBy }) => (
                <span className="inline-form">
                  <input
                    id={id}
                    type="number"
                    min={1}
                    aria-describedby={describedBy}
                    value={a.quantity}
                    onChange={(e) =>
                      change(() =>
                        setAdded(added.map((x, j) => (j === i ? { ...x, quantity: e.target.value } : x))),
                      )
                    }
                  />
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => change(() => setAdded(added.filter((_, j) => j !== i)))}
                  >
                    Remove<span className="visually-hidden"> {a.name}</span>
                  </button>
                </span>
              )}
            </Field>
          ))}
        </fieldset>
        <details open={picking} onToggle={(e) => setPicking(e.currentTarget.open)}>
          <summary>Add a product</summary>
          <ProductPicker
            slug={slug}
            isAdded={(variantId) =>
              added.some((a) => a.variant.id === variantId) ||
              order.lineItems.some((li) => li.variantId === variantId)
            }
            full={false}
            onAdd={(c) =>
              change(() => {
                setAdded([...added, { ...c, quantity: "1" }]);
                setPicking(false);
              })
            }
          />
        </details>
        <Field
          label="Discount codes"
          hint="Separated by commas, applied in this order."
          error={errors.of("discountCodes")}
        >
          {({ id, describedBy }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              value={codes}
              onChange={(e) => change(() => setCodes(e.target.value))}
            />
          )}
        </Field>
        <fieldset className="stack">
          <legend>Shipping</legend>
          {shipping.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the drafts have no identity of their own
            <div className="inline-form" key={i}>
              <Field label="Shipping method" error={errors.of(`shippingLines.${i}.title`)}>
                {({ id }) => (
                  <input
                    id={id}
                    value={s.title}
                    onChange={(e) =>
                      change(() =>
                        setShipping(shipping.map((x, j) => (j === i ? { ...x, title: e.target.value } : x))),
                      )
                    }
                  />
                )}
              </Field>
              <Field label={`Price (${order.currency})`} error={errors.of(`shippingLines.${i}.price`)}>
                {({ id }) => (
                  <input
                    id={id}
                    inputMode="decimal"
                    value={s.price}
                    onChange={(e) =>
                      change(() =>
                        setShipping(shipping.map((x, j) => (j === i ? { ...x, price: e.target.value } : x))),
                      )
                    }
                  />
                )}
              </Field>
              <button
                type="button"
                className="secondary"
                onClick={() => change(() => setShipping(shipping.filter((_, j) => j !== i)))}
              >
                Remove<span className="visually-hidden"> shipping {s.title}</span>
              </button>
            </div>
          ))}
          {shipping.length < MAX_SHIPPING_LINES ? (
            <button
              type="button"
              className="secondary"
              onClick={() => change(() => setShipping([...shipping, { title: "", price: "" }]))}
            >
              Add shipping
            </button>
          ) : null}
        </fieldset>
        <Field label="Reason (optional)">
          {({ id }) => (
            <input id={id} value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
          )}
        </Field>
        {preview ? (
          <dl className="totals" aria-label="Edit preview">
            <dt>Total before</dt>
            <dd>{m(preview.totalBefore)}</dd>
            <dt>Subtotal</dt>
            <dd>{m(preview.order.subtotal)}</dd>
            {Number(preview.order.discounts) > 0 ? (
              <>
                <dt>Discounts</dt>
                <dd>−{m(preview.order.discounts)}</dd>
              </>
            ) : null}
            {Number(preview.order.shipping) > 0 ? (
              <>
                <dt>Shipping</dt>
                <dd>{m(preview.order.shipping)}</dd>
              </>
            ) : null}
            <dt>{order.taxesIncluded ? "Includes tax" : "Tax"}</dt>
            <dd>{m(order.taxesIncluded ? preview.order.taxIncluded : preview.order.tax)}</dd>
            <dt>New total</dt>
            <dd className="strong">{m(preview.totalAfter)}</dd>
            <dt>
              {difference > 0
                ? "The customer pays"
                : difference < 0
                  ? "The customer gets back"
                  : "Difference"}
            </dt>
            <dd className="strong">{m(preview.difference.replace("-", ""))}</dd>
          </dl>
        ) : null}
        <FormActions busy={busy} label={preview ? "Save edit" : "Preview edit"} onCancel={onClose} />
      </form>
    </Modal>
  );
}

/**
 * What an edit left owing on a paid order, and the button that records it settled (collected
 * from the customer, or returned to them, through the store's payment provider).
 */
export function Outstanding({ order }: { order: Order }) {
  const slug = useSlug();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "Recording it failed." });
  const owed = Number(order.outstanding);
  const m = (amount: string) => money(amount, order.currency);
  const amount = m(order.outstanding.replace("-", ""));
  const settle = handle(
    () => [],
    async () => {
      await unwrap(
        api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/settle", {
          params: { path: { slug, id: order.id } },
        }),
      );
      notify(owed > 0 ? `Recorded ${amount} collected` : `Recorded ${amount} returned`);
      await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
    },
  );
  if (owed === 0) return null;
  return (
    <form className="inline-form" onSubmit={settle} noValidate>
      <FormAlert message={errors.message} />
      <p className="warning">
        {owed > 0
          ? `The customer owes ${amount} since the order was edited.`
          : `${amount} is owed back to the customer since the order was edited.`}
      </p>
      <FormActions
        busy={busy}
        label={owed > 0 ? `Record ${amount} collected` : `Record ${amount} returned`}
      />
    </form>
  );
}
