import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, type ReactNode, useState } from "react";
import { Link, useParams } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useCursorList, useStoreCount } from "../api/lists.ts";
import type {
  Customer,
  Order,
  OrderHistoryEntry,
  OrderSort,
  OrderUpdateBody,
  OrderWebhook,
  SortLabels,
} from "../api/types.ts";
import {
  type AddressDraft,
  AddressFieldset,
  AddressView,
  addressBody,
  addressErrors,
  draftOf,
} from "../components/address.tsx";
import { AppDataPanel } from "../components/app-data.tsx";
import { CursorTable, ListTools, Table } from "../components/list.tsx";
import { canEdit, EditOrderDialog, Outstanding } from "../components/order-edit.tsx";
import { StatusActions } from "../components/orders.tsx";
import { canRefund, RefundDialog } from "../components/refund.tsx";
import { ReturnsPanel } from "../components/returns.tsx";
import { parseTags, TagList, TagsField, tagErrors } from "../components/tags.tsx";
import {
  Badge,
  Empty,
  Field,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  Pending,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  ACTOR_KINDS,
  ActorKind,
  DELIVERY_STATUSES,
  FINANCIAL_STATUSES,
  ORDER_STATUS_NAMES,
  ORDER_STATUSES,
  OrderNote,
  OrderStatus,
  PAGE_SIZE,
  Scope,
  SEARCH_MIN_LENGTH,
  WEBHOOK_CHANNELS,
  WebhookChannel,
} from "../contract.ts";
import { money, personName, when } from "../lib/format.ts";
import { useSlug } from "../lib/hooks.ts";
import { useListState } from "../lib/list-state.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

const SORTS: SortLabels<OrderSort> = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  "-updatedAt": "Recently changed first",
  updatedAt: "Least recently changed first",
  "-total": "Total, highest first",
  total: "Total, lowest first",
  "-number": "Number, highest first",
  number: "Number, lowest first",
};

/** An order number or at least 3 characters of the customer's name or e-mail. */
function orderSearch(text: string): string | undefined {
  const t = text.trim();
  return /^#?\d+$/.test(t) || t.length >= SEARCH_MIN_LENGTH ? t : undefined;
}

/** The names of a page's customers, in one request (the customer list's `ids` filter). */
function useCustomerNames(slug: string, ids: string[]) {
  const unique = [...new Set(ids)].sort();
  return useQuery({
    queryKey: ["customer-names", slug, unique],
    queryFn: async () => {
      const res = await unwrap<Customer[]>(
        api.GET("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug }, query: { ids: unique.join(","), limit: unique.length } },
        }),
      );
      return new Map(res.data.map((c) => [c.id, personName(c)]));
    },
    enabled: unique.length > 0,
  });
}

export function OrdersPage() {
  const slug = useSlug();
  const state = useListState({
    sorts: SORTS,
    defaultSort: "-createdAt",
    filters: { status: ORDER_STATUS_NAMES },
  });
  const { search, setSearch, sort, setSort } = state;
  const status = state.filter("status") as OrderStatus | "";
  const q = orderSearch(state.q);
  const total = useStoreCount(slug, "orders", !(q || status));
  const list = useCursorList<Order>(
    ["orders", slug, q, sort, status],
    (cursor) =>
      unwrap<Order[], { nextCursor: string | null }>(
        api.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: {
            path: { slug },
            query: { limit: PAGE_SIZE.dashboard, cursor, q, sort, status: status || undefined },
          },
        }),
      ),
    { pages: state.pages, onPages: state.setPages },
  );
  const names = useCustomerNames(
    slug,
    list.items.map((o) => o.customerId),
  );

  return (
    <>
      <PageHeader
        title="Orders"
        subtitle="Move each order along as you fulfil it; apps hear of every step."
        actions={
          <Link className="button-link primary" to={`/stores/${slug}/orders/new`}>
            New order
          </Link>
        }
      />
      <Panel label="Order list">
        <ListTools
          search={search}
          applied={q !== undefined}
          needs="Type an order number, or 3 characters or more of the customer's name or e-mail"
          onSearch={setSearch}
          searchLabel="Search by number or customer"
          sort={sort}
          onSort={setSort}
          sorts={SORTS}
        >
          <div className="field">
            <label htmlFor="order-status-filter">Show orders with status</label>
            <select
              id="order-status-filter"
              value={status}
              onChange={(e) => state.setFilter("status", e.target.value)}
            >
              <option value="">Any status</option>
              {ORDER_STATUS_NAMES.map((s) => (
                <option key={s} value={s}>
                  {ORDER_STATUSES[s].label}
                </option>
              ))}
            </select>
          </div>
        </ListTools>
        <CursorTable
          list={list}
          total={total}
          filtered={!!(q || status)}
          noun="orders"
          empty={q || status ? "No order matches." : "No orders yet. Place one with New order."}
          headers={[
            "Order",
            "Customer",
            "Items",
            { label: "Total", num: true },
            "Status",
            "Placed",
            "Actions",
          ]}
        >
          {(o) => (
            <tr key={o.id} data-order={o.id}>
              <td data-label="Order">
                <Link to={`/stores/${slug}/orders/${o.id}`} className="strong">
                  {o.name}
                </Link>
              </td>
              <td data-label="Customer" className="user-text">
                {names.data ? (
                  (names.data.get(o.customerId) ?? "Unknown customer")
                ) : (
                  <Pending what="Loading the customer" />
                )}
              </td>
              <td data-label="Items" className="small user-text">
                {o.lineItems.map((li, i) => (
                  <Fragment key={li.id}>
                    {i > 0 ? ", " : null}
                    {li.quantity} × <bdi>{li.title}</bdi>
                  </Fragment>
                ))}
              </td>
              <td data-label="Total" className="num">
                {money(o.total, o.currency)}
              </td>
              <td data-label="Status">
                <Badge value={o.status} label={ORDER_STATUSES[o.status].label} />
              </td>
              <td data-label="Placed" className="small">
                {when(o.createdAt)}
              </td>
              <td className="cell-actions">
                <StatusActions slug={slug} order={o} />
              </td>
            </tr>
          )}
        </CursorTable>
      </Panel>
    </>
  );
}

export function OrderPage() {
  const slug = useSlug();
  const { id = "" } = useParams();
  const [editing, setEditing] = useState<"note" | "address" | null>(null);
  const [refunding, setRefunding] = useState(false);
  const [editingItems, setEditingItems] = useState(false);
  const order = useQuery({
    queryKey: ["order", slug, id],
    queryFn: async () =>
      (
        await unwrap<Order>(
          api.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const history = useQuery({
    queryKey: ["order", slug, id, "history"],
    queryFn: async () =>
      (
        await unwrap<OrderHistoryEntry[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const webhooks = useQuery({
    queryKey: ["order", slug, id, "webhooks"],
    queryFn: async () =>
      (
        await unwrap<OrderWebhook[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const customer = useQuery({
    queryKey: ["customer", slug, order.data?.customerId],
    queryFn: async () =>
      (
        await unwrap<Customer>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug, id: order.data!.customerId } },
          }),
        )
      ).data,
    enabled: Boolean(order.data),
  });

  if (order.isPending) return <Loading what="Loading the order" />;
  if (!order.data) {
    return (
      <>
        <PageHeader title="Order not found" />
        <Link to={`/stores/${slug}/orders`}>Back to orders</Link>
      </>
    );
  }
  const o = order.data;
  // The name in a <bdi>: an app's right-to-left override stays in its name, off "(app)".
  const actorName = (h: OrderHistoryEntry): ReactNode =>
    h.actor.kind === ActorKind.unknown ? (
      ACTOR_KINDS.unknown.label
    ) : h.actor.kind === ActorKind.app ? (
      <>
        <bdi>{h.actor.name}</bdi> (app)
      </>
    ) : (
      <bdi>{h.actor.name}</bdi>
    );
  const addressFinal = FINAL_ADDRESS.has(o.status);
  return (
    <>
      <PageHeader
        title={`Order ${o.name}`}
        subtitle={
          <>
            Placed {when(o.createdAt)} · <Badge value={o.status} label={ORDER_STATUSES[o.status].label} />
            {/* The payment's own status where the order's does not say it (shipped and paid, refunded). */}
            {(o.financialStatus as string) !== o.status ? (
              <>
                {" "}
                <Badge value={o.financialStatus} label={FINANCIAL_STATUSES[o.financialStatus].label} />
              </>
            ) : null}
          </>
        }
        actions={
          <>
            {canEdit(o) ? (
              <button type="button" className="secondary" onClick={() => setEditingItems(true)}>
                Edit items
              </button>
            ) : null}
            {canRefund(o) ? (
              <button type="button" className="secondary" onClick={() => setRefunding(true)}>
                Refund
              </button>
            ) : null}
            <StatusActions slug={slug} order={o} />
          </>
        }
      />
      {refunding ? <RefundDialog slug={slug} order={o} onClose={() => setRefunding(false)} /> : null}
      {editingItems ? <EditOrderDialog order={o} onClose={() => setEditingItems(false)} /> : null}
      <div className="columns">
        <div>
          <Panel title="Items">
            <Table
              headers={[
                "Product",
                "SKU",
                { label: "Unit price", num: true },
                { label: "Quantity", num: true },
                { label: "Total", num: true },
              ]}
            >
              {o.lineItems.map((li) => (
                <tr key={li.id}>
                  <td data-label="Product" className="user-text">
                    {li.title}
                  </td>
                  <td data-label="SKU" className="mono user-text">
                    {li.sku ?? "—"}
                  </td>
                  <td data-label="Unit price" className="num">
                    {money(li.unitPrice, o.currency)}
                  </td>
                  <td data-label="Quantity" className="num">
                    {li.quantity}
                  </td>
                  <td data-label="Total" className="num">
                    {money(li.total, o.currency)}
                  </td>
                </tr>
              ))}
            </Table>
            <OrderTotals order={o} />
            <Outstanding order={o} />
          </Panel>
          <ReturnsPanel slug={slug} order={o} />
          <Panel title="Fulfilment">
            {o.fulfillment ? (
              <dl className="details">
                <dt>Shipped</dt>
                <dd>{when(o.fulfillment.shippedAt)}</dd>
                <dt>Carrier</dt>
                <dd>{o.fulfillment.carrier ?? "Not given"}</dd>
                <dt>Tracking number</dt>
                <dd className="mono">
                  {o.fulfillment.trackingNumber ? (
                    o.fulfillment.trackingUrl ? (
                      <a href={o.fulfillment.trackingUrl} target="_blank" rel="noopener noreferrer">
                        {o.fulfillment.trackingNumber}
                      </a>
                    ) : (
                      o.fulfillment.trackingNumber
                    )
                  ) : (
                    "Not given"
                  )}
                </dd>
                {o.fulfillment.trackingUrl && !o.fulfillment.trackingNumber ? (
                  <>
                    <dt>Tracking</dt>
                    <dd>
                      <a href={o.fulfillment.trackingUrl} target="_blank" rel="noopener noreferrer">
                        Follow the parcel
                      </a>
                    </dd>
                  </>
                ) : null}
              </dl>
            ) : (
              <p className="muted">
                {o.status === OrderStatus.cancelled
                  ? "Cancelled: nothing ships."
                  : "Not shipped yet. Mark it shipped to record the carrier and tracking number."}
              </p>
            )}
          </Panel>
          <Panel title="Note and tags">
            {editing === "note" ? (
              <NoteForm slug={slug} order={o} onDone={() => setEditing(null)} />
            ) : (
              <>
                <dl className="details">
                  <dt>Note</dt>
                  <dd className="note">{o.note || <span className="muted">None</span>}</dd>
                  <dt>Tags</dt>
                  <dd>
                    <TagList tags={o.tags} />
                  </dd>
                </dl>
                <button type="button" className="secondary" onClick={() => setEditing("note")}>
                  Edit note and tags
                </button>
              </>
            )}
          </Panel>
        </div>
        <div>
          <Panel title="Customer">
            {customer.data ? (
              <p>
                <Link to={`/stores/${slug}/customers/${customer.data.id}`} className="strong">
                  {customer.data.anonymizedAt ? "Deleted customer" : personName(customer.data)}
                </Link>
                <br />
                <span className="muted">{customer.data.anonymizedAt ? "" : customer.data.email}</span>
                {customer.data.phone ? (
                  <>
                    <br />
                    <span className="muted">{customer.data.phone}</span>
                  </>
                ) : null}
              </p>
            ) : (
              <Loading />
            )}
          </Panel>
          <Panel title="Shipping address">
            {editing === "address" ? (
              <AddressForm slug={slug} order={o} onDone={() => setEditing(null)} />
            ) : (
              <>
                {o.shippingAddress ? (
                  <AddressView address={o.shippingAddress} />
                ) : (
                  <p className="muted">No shipping: collected, or a service.</p>
                )}
                {addressFinal ? null : (
                  <button type="button" className="secondary spaced" onClick={() => setEditing("address")}>
                    {o.shippingAddress ? "Change address" : "Add an address"}
                  </button>
                )}
              </>
            )}
          </Panel>
          <Panel title="Timeline">
            {history.data ? (
              <ol className="timeline">
                {history.data.map((h) => (
                  <li key={`${h.status}-${h.at}`}>
                    <Badge value={h.status} label={ORDER_STATUSES[h.status].label} />{" "}
                    <span className="small">
                      {when(h.at)} · {actorName(h)}
                    </span>
                  </li>
                ))}
              </ol>
            ) : (
              <Loading />
            )}
          </Panel>
          <AppDataPanel slug={slug} kind="order" id={o.id} />
        </div>
      </div>
      <Panel title="Webhooks">
        {webhooks.isPending ? (
          <Loading />
        ) : webhooks.data?.length ? (
          <Table
            headers={["Event", "App", "Status", { label: "Attempts", num: true }, "Last answer", "Sent"]}
          >
            {webhooks.data.map((w) => (
              <tr key={`${w.via}-${w.id}`}>
                <td data-label="Event" className="mono">
                  {w.eventName}
                </td>
                <td data-label="App" className="user-text">
                  {w.app.name}
                </td>
                {w.via === WebhookChannel.subscription ? (
                  <>
                    <td data-label="Status">
                      <Badge value={w.status} label={DELIVERY_STATUSES[w.status].label} />
                    </td>
                    <td data-label="Attempts" className="num">
                      {w.attempts}
                    </td>
                    <td data-label="Last answer">{w.lastStatusCode ?? "—"}</td>
                  </>
                ) : (
                  <>
                    {/* A developer's `listen` received it: no delivery status; the answer of their
                        local endpoint was shown on their screen, not to the platform. */}
                    <td data-label="Status">
                      <Badge
                        value={WebhookChannel.listen}
                        label={`Streamed to ${WEBHOOK_CHANNELS.listen.label}`}
                      />
                    </td>
                    <td data-label="Attempts" className="num">
                      —
                    </td>
                    <td data-label="Last answer" className="small">
                      On the developer's machine
                    </td>
                  </>
                )}
                <td data-label="Sent" className="small">
                  {when(w.createdAt)}
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>
            No app was notified about this order (no installed app subscribes to its events or streamed them
            with <code>listen</code>).
          </Empty>
        )}
      </Panel>
    </>
  );
}

/** Statuses after which an order's shipping address is final (the server says 409). */
const FINAL_ADDRESS = new Set<OrderStatus>([
  OrderStatus.shipped,
  OrderStatus.delivered,
  OrderStatus.cancelled,
]);

function useOrderSaved(slug: string, order: Order, onDone: () => void) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  return async (body: OrderUpdateBody) => {
    await unwrap(
      api.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug, id: order.id } },
        body,
      }),
    );
    notify("Changes saved");
    await queryClient.invalidateQueries({ queryKey: ["order", slug, order.id] });
    await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
    onDone();
  };
}

function NoteForm({ slug, order, onDone }: { slug: string; order: Order; onDone: () => void }) {
  const [note, setNote] = useState(order.note);
  const [tags, setTags] = useState(order.tags.join(", "));
  const save = useOrderSaved(slug, order, onDone);
  const { errors, busy, handle } = useSubmit({ failure: "Saving failed." });
  const submit = handle(
    () => [...validate([["note", OrderNote, note]]), ...tagErrors("tags", parseTags(tags))],
    () => save({ note, tags: parseTags(tags) }),
  );
  return (
    <form className="form stack" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <Field label="Note" error={errors.of("note")}>
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={3}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </Field>
      <TagsField value={tags} onChange={setTags} error={errors.of("tags")} />
      <FormActions busy={busy} label="Save" onCancel={onDone} />
    </form>
  );
}

function AddressForm({ slug, order, onDone }: { slug: string; order: Order; onDone: () => void }) {
  const [address, setAddress] = useState<AddressDraft>(draftOf(order.shippingAddress));
  const save = useOrderSaved(slug, order, onDone);
  const { errors, busy, handle } = useSubmit({ failure: "Saving failed." });
  const submit = handle(
    () => addressErrors("shippingAddress", address),
    () => save({ shippingAddress: addressBody(address) }),
  );
  return (
    <form className="form stack" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <AddressFieldset
        legend="Ship to"
        value={address}
        onChange={setAddress}
        errorOf={errors.of}
        prefix="shippingAddress"
      />
      <div className="actions">
        {order.shippingAddress ? (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => save({ shippingAddress: null }).catch(() => {})}
          >
            Remove address
          </button>
        ) : null}
      </div>
      <FormActions busy={busy} label="Save address" onCancel={onDone} />
    </form>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/orders",
    element: <OrdersPage />,
    storeMenu: { label: "Orders", order: 20, scope: Scope.read_orders },
  }),
  definePage({ path: "/stores/:slug/orders/:id", element: <OrderPage /> }),
];

/**
 * An order's money as the merchant reads an invoice: subtotal, each discount code with what it
 * took, each shipping line, tax by rate (added, or included in the prices), the total.
 */
function OrderTotals({ order: o }: { order: Order }) {
  const m = (amount: string) => money(amount, o.currency);
  return (
    <dl className="totals">
      <dt>Subtotal</dt>
      <dd>{m(o.subtotal)}</dd>
      {o.discountApplications.map((d) => (
        <Fragment key={`d-${d.code}`}>
          <dt>
            Discount <span className="mono user-text">{d.code}</span>
            {d.percentage ? ` (${d.percentage} %)` : ""}
          </dt>
          <dd>−{m(d.amount)}</dd>
        </Fragment>
      ))}
      {o.shippingLines.map((s) => (
        <Fragment key={`s-${s.title}-${s.code}-${s.price}`}>
          <dt>
            Shipping: <span className="user-text">{s.title}</span>
          </dt>
          <dd>{m(s.price)}</dd>
        </Fragment>
      ))}
      {o.taxLines.map((t) => (
        <Fragment key={`t-${t.title}-${t.rate}`}>
          <dt>
            {o.taxesIncluded ? "Includes " : ""}
            <span className="user-text">{t.title}</span> ({t.rate} %)
          </dt>
          <dd>{m(t.amount)}</dd>
        </Fragment>
      ))}
      <dt>Total</dt>
      <dd className="strong">{m(o.total)}</dd>
      {Number(o.refunded) > 0 ? (
        <>
          <dt>Refunded</dt>
          <dd>−{m(o.refunded)}</dd>
          <dt>Net</dt>
          <dd className="strong">{m(o.net)}</dd>
        </>
      ) : null}
    </dl>
  );
}
