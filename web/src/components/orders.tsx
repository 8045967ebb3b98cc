import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { Order } from "../api/types.ts";
import { allowedTransitions, ORDER_STATUSES, OrderStatus } from "../contract.ts";
import { useConfirm, useNotify } from "./ui.tsx";

/** "Mark paid", "Cancel order": the button of each move the contract allows from the status. */
export function statusActionLabel(to: OrderStatus): string {
  return to === OrderStatus.cancelled ? "Cancel order" : `Mark ${ORDER_STATUSES[to].label.toLowerCase()}`;
}

/**
 * The legal next moves of an order, as buttons (cancelling asks first). A move the order can no
 * longer make (it changed elsewhere meanwhile) shows the server's message and the fresh order.
 */
export function StatusActions({ slug, order }: { slug: string; order: Order }) {
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();

  async function move(to: OrderStatus) {
    if (to === OrderStatus.cancelled) {
      const ok = await confirm({
        title: `Cancel order #${order.number}?`,
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
      await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
      await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
    }
  }

  const next = allowedTransitions(order.status);
  if (next.length === 0) return null;
  return (
    <>
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
    </>
  );
}
