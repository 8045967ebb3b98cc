import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { createPortal } from "react-dom";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { Order } from "../api/types.ts";
import {
  allowedTransitions,
  Carrier,
  ORDER_STATUSES,
  OrderStatus,
  TrackingNumber,
  TrackingUrl,
} from "../contract.ts";
import { validate } from "../lib/validate.ts";
import { FormActions, FormAlert, Modal, TextField, useConfirm, useNotify, useSubmit } from "./ui.tsx";

/** "Mark paid", "Cancel order": the button of each move the contract allows from the status. */
export function statusActionLabel(to: OrderStatus): string {
  return to === OrderStatus.cancelled ? "Cancel order" : `Mark ${ORDER_STATUSES[to].label.toLowerCase()}`;
}

type Fulfillment = { carrier?: string; trackingNumber?: string; trackingUrl?: string };

/**
 * The legal next moves of an order, as buttons (cancelling asks first; shipping asks how it left:
 * carrier, tracking number and link, all optional). A move the order can no longer make (it
 * changed elsewhere meanwhile) shows the server's message and the fresh order.
 */
export function StatusActions({ slug, order }: { slug: string; order: Order }) {
  const [busy, setBusy] = useState(false);
  // Shipping asks how it left: a move to shipped, or a paid order fulfilled (confirmed and shipped).
  const [shipping, setShipping] = useState<false | "ship" | "fulfill">(false);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
    await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
  };

  async function move(to: OrderStatus) {
    if (to === OrderStatus.shipped) return setShipping("ship");
    if (to === OrderStatus.cancelled) {
      const ok = await confirm({
        title: `Cancel order ${order.name}?`,
        message: "Its stock goes back to the catalogue. This cannot be undone.",
        confirmLabel: "Cancel order",
      });
      if (!ok) return;
    }
    setBusy(true);
    try {
      await unwrap(
        api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
          params: { path: { slug, id: order.id } },
          body: { status: to },
        }),
      );
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "The order could not move.", "error");
    } finally {
      setBusy(false);
      await refresh();
    }
  }

  const next = allowedTransitions(order.status);
  if (next.length === 0) return null;
  return (
    <>
      {order.status === OrderStatus.paid ? (
        <button type="button" disabled={busy} onClick={() => setShipping("fulfill")}>
          Fulfil
        </button>
      ) : null}
      {next.map((to) => (
        <button
          key={to}
          type="button"
          className={to === OrderStatus.cancelled ? "danger" : "secondary"}
          disabled={busy}
          onClick={() => move(to)}
        >
          {statusActionLabel(to)}
        </button>
      ))}
      {shipping
        ? // In the body, not in the table row the buttons may sit in.
          createPortal(
            <Modal
              title={`${shipping === "fulfill" ? "Fulfil" : "Ship"} order ${order.name}`}
              onClose={() => setShipping(false)}
            >
              <ShipForm
                slug={slug}
                order={order}
                fulfill={shipping === "fulfill"}
                onDone={async () => {
                  setShipping(false);
                  await refresh();
                }}
                onCancel={() => setShipping(false)}
              />
            </Modal>,
            document.body,
          )
        : null}
    </>
  );
}

/** How the order left: carrier, tracking number and the carrier's tracking link, all optional. */
function ShipForm(props: {
  slug: string;
  order: Order;
  /** A paid order confirmed and shipped in one action (its own operation), not one move. */
  fulfill: boolean;
  onDone: () => Promise<void>;
  onCancel: () => void;
}) {
  const [carrier, setCarrier] = useState("");
  const [trackingNumber, setTrackingNumber] = useState("");
  const [trackingUrl, setTrackingUrl] = useState("");
  const notify = useNotify();
  const { errors, busy, handle } = useSubmit({ failure: "The order could not be marked shipped." });
  const fulfillment: Fulfillment = Object.fromEntries(
    (
      [
        ["carrier", carrier.trim()],
        ["trackingNumber", trackingNumber.trim()],
        ["trackingUrl", trackingUrl.trim()],
      ] as const
    ).filter(([, v]) => v),
  );
  const submit = handle(
    () =>
      validate([
        ...(fulfillment.carrier ? ([["fulfillment.carrier", Carrier, fulfillment.carrier]] as const) : []),
        ...(fulfillment.trackingNumber
          ? ([["fulfillment.trackingNumber", TrackingNumber, fulfillment.trackingNumber]] as const)
          : []),
        ...(fulfillment.trackingUrl
          ? ([["fulfillment.trackingUrl", TrackingUrl, fulfillment.trackingUrl]] as const)
          : []),
      ]),
    async () => {
      const params = { path: { slug: props.slug, id: props.order.id } };
      const details = Object.keys(fulfillment).length ? { fulfillment } : {};
      await unwrap(
        props.fulfill
          ? api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/fulfill", { params, body: details })
          : api.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
              params,
              body: { status: OrderStatus.shipped, ...details },
            }),
      );
      notify(
        `Order ${props.order.name} ${props.fulfill ? "fulfilled: confirmed and shipped" : "marked shipped"}`,
      );
      await props.onDone();
    },
  );
  return (
    <form className="form stack" onSubmit={submit} noValidate>
      <p className="muted">
        The customer's tracking details appear on the order, and apps hear of them with{" "}
        <code>order.shipped</code>. All optional.
      </p>
      <FormAlert message={errors.message} />
      <TextField
        label="Carrier"
        value={carrier}
        onChange={setCarrier}
        placeholder="DHL Express"
        error={errors.of("fulfillment.carrier")}
      />
      <TextField
        label="Tracking number"
        value={trackingNumber}
        onChange={setTrackingNumber}
        error={errors.of("fulfillment.trackingNumber")}
      />
      <TextField
        label="Tracking link"
        type="url"
        value={trackingUrl}
        onChange={setTrackingUrl}
        placeholder="https://"
        hint="Where the customer follows the parcel."
        error={errors.of("fulfillment.trackingUrl")}
      />
      <FormActions
        busy={busy}
        label={props.fulfill ? "Fulfil order" : "Mark shipped"}
        busyLabel="Saving…"
        onCancel={props.onCancel}
      />
    </form>
  );
}
