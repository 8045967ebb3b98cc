import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { Order, OrderReturn } from "../api/types.ts";
import {
  OrderStatus,
  RETURN_REASON_NAMES,
  RETURN_REASONS,
  RETURN_STATUSES,
  type ReturnReason,
  ReturnStatus,
} from "../contract.ts";
import { when } from "../lib/format.ts";
import { useIdempotencyKey } from "../lib/hooks.ts";
import { Badge, Empty, Field, FormActions, FormAlert, Panel, useNotify, useSubmit } from "./ui.tsx";

const SHIPPED = new Set<string>([OrderStatus.shipped, OrderStatus.delivered]);
type Step = "approve" | "decline" | "receive" | "close";
/** What the merchant may do next with a return in each status (the contract's `next`). */
const ACTIONS: Record<ReturnStatus, Array<{ step: Step; label: string }>> = {
  requested: [
    { step: "approve", label: "Approve" },
    { step: "decline", label: "Decline" },
  ],
  approved: [
    { step: "receive", label: "Mark received (restock)" },
    { step: "close", label: "Close" },
  ],
  declined: [],
  received: [{ step: "close", label: "Close and refund" }],
  closed: [],
};

/**
 * An order's returns (issue 31, part 4): each with its units and reasons, the time of every step
 * and the next steps as buttons; a shipped order offers a new one.
 */
export function ReturnsPanel({ slug, order }: { slug: string; order: Order }) {
  const path = { slug, id: order.id };
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [requesting, setRequesting] = useState(false);
  const returns = useQuery({
    queryKey: ["order", slug, order.id, "returns"],
    queryFn: async () =>
      (
        await unwrap<OrderReturn[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", { params: { path } }),
        )
      ).data,
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
  };
  async function act(r: OrderReturn, step: Step) {
    const params = { path: { slug, id: r.id } };
    try {
      if (step === "approve")
        await unwrap(api.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/approve", { params }));
      if (step === "decline")
        await unwrap(api.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/decline", { params }));
      if (step === "receive")
        await unwrap(api.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/receive", { params, body: {} }));
      if (step === "close")
        await unwrap(api.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/close", { params, body: {} }));
      notify(`Return ${RETURN_STATUSES[nextOf(step)].label.toLowerCase()}`);
      await refresh();
    } catch (error) {
      notify(error instanceof Error ? error.message : "The return could not move on.", "error");
    }
  }
  const titleOf = (lineItemId: string) => order.lineItems.find((li) => li.id === lineItemId)?.title ?? "Item";
  return (
    <Panel title="Returns">
      {returns.data?.length ? (
        <ul className="returns">
          {returns.data.map((r) => (
            <li key={r.id}>
              <Badge value={r.status} label={RETURN_STATUSES[r.status].label} />{" "}
              {r.lineItems
                .map((l) => `${l.quantity} × ${titleOf(l.lineItemId)} (${RETURN_REASONS[l.reason].label})`)
                .join(", ")}
              <p className="small">
                Requested {when(r.requestedAt)}
                {r.approvedAt ? ` · approved ${when(r.approvedAt)}` : ""}
                {r.declinedAt ? ` · declined ${when(r.declinedAt)}` : ""}
                {r.receivedAt ? ` · received ${when(r.receivedAt)}` : ""}
                {r.closedAt ? ` · closed ${when(r.closedAt)}${r.refundId ? ", refunded" : ""}` : ""}
              </p>
              <div className="actions">
                {ACTIONS[r.status].map((a) => (
                  <button key={a.step} type="button" className="secondary" onClick={() => act(r, a.step)}>
                    {a.label}
                  </button>
                ))}
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <Empty>No returns.</Empty>
      )}
      {SHIPPED.has(order.status) && !requesting ? (
        <button type="button" className="secondary" onClick={() => setRequesting(true)}>
          Request a return
        </button>
      ) : null}
      {requesting ? (
        <ReturnForm slug={slug} order={order} onDone={() => setRequesting(false)} onSaved={refresh} />
      ) : null}
    </Panel>
  );
}

const nextOf = (step: Step): ReturnStatus =>
  step === "approve"
    ? ReturnStatus.approved
    : step === "decline"
      ? ReturnStatus.declined
      : step === "receive"
        ? ReturnStatus.received
        : ReturnStatus.closed;

function ReturnForm(props: { slug: string; order: Order; onDone: () => void; onSaved: () => Promise<void> }) {
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [reason, setReason] = useState<ReturnReason>("unwanted");
  const [key, answered] = useIdempotencyKey();
  const notify = useNotify();
  const { errors, busy, handle } = useSubmit({ failure: "The return could not be requested.", answered });
  const lineItems = props.order.lineItems
    .filter((li) => (quantities[li.id] ?? 0) > 0)
    .map((li) => ({ lineItemId: li.id, quantity: quantities[li.id]!, reason }));
  const submit = handle(
    () => (lineItems.length ? [] : [{ field: "lineItems", message: "Choose what comes back." }]),
    async () => {
      await unwrap(
        api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
          params: { path: { slug: props.slug, id: props.order.id } },
          body: { lineItems },
          headers: { "idempotency-key": key },
        }),
      );
      notify("Return requested");
      await props.onSaved();
      props.onDone();
    },
  );
  return (
    <form className="form stack" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      {props.order.lineItems.map((li) => (
        <Field key={li.id} label={`${li.title}: units coming back (of ${li.quantity})`}>
          {({ id }) => (
            <input
              id={id}
              type="number"
              min={0}
              max={li.quantity}
              value={quantities[li.id] ?? 0}
              onChange={(e) =>
                setQuantities({
                  ...quantities,
                  [li.id]: Math.max(0, Math.min(li.quantity, Number(e.target.value) || 0)),
                })
              }
            />
          )}
        </Field>
      ))}
      <Field label="Reason">
        {({ id }) => (
          <select id={id} value={reason} onChange={(e) => setReason(e.target.value as ReturnReason)}>
            {RETURN_REASON_NAMES.map((r) => (
              <option key={r} value={r}>
                {RETURN_REASONS[r].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormActions busy={busy} label="Request return" onCancel={props.onDone} />
    </form>
  );
}
