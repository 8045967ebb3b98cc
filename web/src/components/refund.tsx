import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { Order, RefundCalculation } from "../api/types.ts";
import { FinancialStatus } from "../contract.ts";
import { money } from "../lib/format.ts";
import { useIdempotencyKey } from "../lib/hooks.ts";
import { Field, FormActions, FormAlert, Modal, useNotify, useSubmit } from "./ui.tsx";

/** Whether an order has money left to refund (paid, and not all of it refunded). */
export const canRefund = (o: Order) =>
  o.financialStatus === FinancialStatus.paid || o.financialStatus === FinancialStatus.partially_refunded;

/**
 * The refund dialog (issue 31): how many units of each line, the shipping, whether they go back
 * into stock; the server's calculation (each line's share of its discounts and tax) is shown
 * before anything is recorded, and the refund is recorded only with the amount shown.
 */
export function RefundDialog({ slug, order, onClose }: { slug: string; order: Order; onClose: () => void }) {
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [shipping, setShipping] = useState(false);
  const [restock, setRestock] = useState(true);
  const [note, setNote] = useState("");
  const [calculation, setCalculation] = useState<RefundCalculation | null>(null);
  const [key, answered] = useIdempotencyKey();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "The refund failed.", answered });
  const lineItems = order.lineItems
    .filter((li) => (quantities[li.id] ?? 0) > 0)
    .map((li) => ({ lineItemId: li.id, quantity: quantities[li.id]! }));
  const body = { lineItems, shipping, restock };
  const path = { slug, id: order.id };
  const m = (amount: string) => money(amount, order.currency);
  const shippingLeft = order.shippingLines.length > 0 && order.financialStatus === FinancialStatus.paid;

  const calculate = handle(
    () =>
      lineItems.length === 0 && !shipping ? [{ field: "lineItems", message: "Choose what to refund." }] : [],
    async () => {
      setCalculation(
        (
          await unwrap<RefundCalculation>(
            api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds/calculate", {
              params: { path },
              body,
            }),
          )
        ).data,
      );
    },
  );
  const confirm = handle(
    () => [],
    async () => {
      const refund = await unwrap<{ amount: string }>(
        api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
          params: { path },
          body: { ...body, ...(note.trim() ? { note: note.trim() } : {}) },
          headers: { "idempotency-key": key },
        }),
      );
      notify(`Refunded ${m(refund.data.amount)}`);
      await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
      await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
      onClose();
    },
  );
  const change = (update: () => void) => {
    update();
    setCalculation(null);
  };

  return (
    <Modal title={`Refund order ${order.name}`} onClose={onClose} wide>
      <form className="form stack" onSubmit={calculation ? confirm : calculate} noValidate>
        <FormAlert message={errors.message ?? errors.of("lineItems")} />
        {order.lineItems.map((li) => {
          const left = li.quantity - li.refundedQuantity;
          return (
            <Field key={li.id} label={`${li.title} (${left} of ${li.quantity} left to refund)`}>
              {({ id }) => (
                <input
                  id={id}
                  type="number"
                  min={0}
                  max={left}
                  disabled={left === 0}
                  value={quantities[li.id] ?? 0}
                  onChange={(e) =>
                    change(() =>
                      setQuantities({
                        ...quantities,
                        [li.id]: Math.max(0, Math.min(left, Number(e.target.value) || 0)),
                      }),
                    )
                  }
                />
              )}
            </Field>
          );
        })}
        {shippingLeft ? (
          <label className="check">
            <input
              type="checkbox"
              checked={shipping}
              onChange={(e) => change(() => setShipping(e.target.checked))}
            />{" "}
            Refund the shipping ({m(order.shipping)})
          </label>
        ) : null}
        <label className="check">
          <input
            type="checkbox"
            checked={restock}
            onChange={(e) => change(() => setRestock(e.target.checked))}
          />{" "}
          Put the items back into stock
        </label>
        <Field label="Note (optional)">
          {({ id }) => (
            <input id={id} value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
          )}
        </Field>
        {calculation ? (
          <dl className="totals" aria-label="Refund calculation">
            {calculation.lineItems.map((l) => {
              const li = order.lineItems.find((x) => x.id === l.lineItemId);
              return (
                <FragmentRow
                  key={l.lineItemId}
                  label={`${l.quantity} × ${li?.title ?? "item"}`}
                  value={m(l.amount)}
                />
              );
            })}
            {Number(calculation.shipping) > 0 ? (
              <FragmentRow label="Shipping" value={m(calculation.shipping)} />
            ) : null}
            <FragmentRow
              label={order.taxesIncluded ? "Includes tax" : "Of which tax"}
              value={m(calculation.tax)}
            />
            <dt>Refund</dt>
            <dd className="strong">{m(calculation.amount)}</dd>
          </dl>
        ) : null}
        <FormActions
          busy={busy}
          label={calculation ? `Refund ${m(calculation.amount)}` : "Calculate refund"}
          onCancel={onClose}
        />
      </form>
    </Modal>
  );
}

function FragmentRow({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
}
