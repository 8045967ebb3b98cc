import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import type { Customer, Order, OrderHistoryEntry, OrderWebhook, Product } from "../api/types.ts";
import { CursorTable, ListTools, Table } from "../components/list.tsx";
import { StatusActions } from "../components/orders.tsx";
import {
  Badge,
  Empty,
  Field,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  ACTOR_KINDS,
  ActorKind,
  DELIVERY_STATUSES,
  ORDER_STATUS_NAMES,
  ORDER_STATUSES,
  OrderNote,
  type OrderStatus,
  ProductStatus,
  Quantity,
  WEBHOOK_CHANNELS,
  WebhookChannel,
} from "../contract.ts";
import { money, personName, when } from "../lib/format.ts";
import { useDebounced, useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { validate } from "../lib/validate.ts";

const SORTS: Array<[string, string]> = [
  ["-createdAt", "Newest first"],
  ["createdAt", "Oldest first"],
  ["-total", "Total, highest first"],
  ["total", "Total, lowest first"],
  ["-number", "Number, highest first"],
  ["number", "Number, lowest first"],
];

/** An order number or at least 3 characters of the customer's name or e-mail. */
function orderSearch(text: string): string | undefined {
  const t = text.trim();
  return /^#?\d+$/.test(t) || t.length >= 3 ? t : undefined;
}

function useCustomerNames(slug: string, ids: string[]) {
  const unique = [...new Set(ids)].sort();
  return useQuery({
    queryKey: ["customer-names", slug, unique],
    queryFn: async () => {
      const entries = await Promise.all(
        unique.map(async (id) => {
          const res = await unwrap<Customer>(
            api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", { params: { path: { slug, id } } }),
          ).catch(() => null);
          return [id, res ? personName(res.data) : "Unknown customer"] as const;
        }),
      );
      return new Map(entries);
    },
    enabled: unique.length > 0,
  });
}

export function OrdersPage() {
  const slug = useSlug();
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState("-createdAt");
  const [status, setStatus] = useState<OrderStatus | "">("");
  const q = orderSearch(useDebounced(search));
  const list = useCursorList<Order>(["orders", slug, q, sort, status], (cursor) =>
    unwrap<Order[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: {
          path: { slug },
          query: { limit: 20, cursor, q, sort: sort as never, status: status || undefined },
        },
      }),
    ),
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
      />
      <Panel label="Order list">
        <ListTools
          search={search}
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
              onChange={(e) => setStatus(e.target.value as OrderStatus | "")}
            >
              <option value="">Any status</option>
              {ORDER_STATUS_NAMES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
        </ListTools>
        <CursorTable
          list={list}
          noun="orders"
          empty={q || status ? "No order matches." : "No orders yet. Place one below."}
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
                  #{o.number}
                </Link>
              </td>
              <td data-label="Customer">{names.data?.get(o.customerId) ?? "…"}</td>
              <td data-label="Items" className="small">
                {o.lineItems.map((li) => `${li.quantity} × ${li.title}`).join(", ")}
              </td>
              <td data-label="Total" className="num">
                {money(o.total, o.currency)}
              </td>
              <td data-label="Status">
                <Badge value={o.status} />
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
      <Panel title="Place an order">
        <OrderForm slug={slug} />
      </Panel>
    </>
  );
}

/** A new order: a customer and products found by search, quantities checked by the contract. */
function OrderForm({ slug }: { slug: string }) {
  const [customerQuery, setCustomerQuery] = useState("");
  const [productQuery, setProductQuery] = useState("");
  const [customerId, setCustomerId] = useState("");
  const [productId, setProductId] = useState("");
  const [quantity, setQuantity] = useState("1");
  const [note, setNote] = useState("");
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Placing the order failed.", answered });
  const cq = useDebounced(customerQuery.trim());
  const pq = useDebounced(productQuery.trim());
  const customers = useQuery({
    queryKey: ["customers", slug, "picker", cq],
    queryFn: async () =>
      (
        await unwrap<Customer[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug }, query: { limit: 50, q: cq.length >= 3 ? cq : undefined } },
          }),
        )
      ).data,
  });
  const products = useQuery({
    queryKey: ["products", slug, "picker", pq],
    queryFn: async () =>
      (
        await unwrap<Product[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/products", {
            params: {
              path: { slug },
              query: { limit: 50, status: ProductStatus.active, q: pq.length >= 3 ? pq : undefined },
            },
          }),
        )
      ).data,
  });
  const chosenCustomer = customerId || customers.data?.[0]?.id || "";
  const chosenProduct = productId || products.data?.[0]?.id || "";

  const qty = Number(quantity);
  const submit = handle(
    () => {
      const invalid = validate([
        ["lineItems.0.quantity", Quantity, Number.isInteger(qty) ? qty : Number.NaN],
        ["note", OrderNote, note],
      ]);
      if (!chosenCustomer)
        invalid.push({ field: "customerId", message: "choose a customer (add one first)" });
      if (!chosenProduct)
        invalid.push({ field: "lineItems.0.productId", message: "choose an active product (add one first)" });
      return invalid;
    },
    async () => {
      const { data } = await unwrap<Order>(
        api.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug } },
          body: {
            customerId: chosenCustomer,
            lineItems: [{ productId: chosenProduct, quantity: qty }],
            ...(note ? { note } : {}),
          },
          headers: { "idempotency-key": key },
        }),
      );
      notify(`Order #${data.number} placed`);
      setNote("");
      await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
      await queryClient.invalidateQueries({ queryKey: ["products", slug] });
    },
  );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <Field label="Find a customer" hint="Name or e-mail, 3 characters or more.">
        {({ id, describedBy }) => (
          <input
            id={id}
            type="search"
            aria-describedby={describedBy}
            value={customerQuery}
            onChange={(e) => setCustomerQuery(e.target.value)}
          />
        )}
      </Field>
      <Field label="Customer" error={errors.of("customerId")}>
        {({ id, describedBy, invalid }) => (
          <select
            id={id}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={chosenCustomer}
            onChange={(e) => setCustomerId(e.target.value)}
          >
            {(customers.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {personName(c)} ({c.email})
              </option>
            ))}
          </select>
        )}
      </Field>
      {customers.data && customers.data.length === 0 && !cq ? (
        <p className="hint">
          No customers yet. <Link to={`/stores/${slug}/customers`}>Add a customer</Link>
        </p>
      ) : null}
      <Field label="Find a product" hint="Title or SKU, 3 characters or more.">
        {({ id, describedBy }) => (
          <input
            id={id}
            type="search"
            aria-describedby={describedBy}
            value={productQuery}
            onChange={(e) => setProductQuery(e.target.value)}
          />
        )}
      </Field>
      <div className="line wide">
        <Field label="Product" error={errors.of("lineItems.0.productId")}>
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={chosenProduct}
              onChange={(e) => setProductId(e.target.value)}
            >
              {(products.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.title} — {money(p.price, p.currency)} ({p.stock} in stock)
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Quantity" error={errors.of("lineItems.0.quantity") ?? errors.of("lineItems.0")}>
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              inputMode="numeric"
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={quantity}
              onChange={(e) => setQuantity(e.target.value)}
            />
          )}
        </Field>
      </div>
      {products.data && products.data.length === 0 && !pq ? (
        <p className="hint">
          No active products yet. <Link to={`/stores/${slug}/products`}>Add a product</Link>
        </p>
      ) : null}
      <Field label="Note" hint="Optional; kept with the order." error={errors.of("note")} className="wide">
        {({ id, describedBy }) => (
          <textarea
            id={id}
            rows={2}
            aria-describedby={describedBy}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </Field>
      <FormActions busy={busy} label="Place order" busyLabel="Placing…" />
    </form>
  );
}

export function OrderPage() {
  const slug = useSlug();
  const { id = "" } = useParams();
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
  return (
    <>
      <PageHeader
        title={`Order #${o.number}`}
        subtitle={
          <>
            Placed {when(o.createdAt)} · <Badge value={o.status} />
          </>
        }
        actions={<StatusActions slug={slug} order={o} />}
      />
      <div className="columns">
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
                <td data-label="Product">{li.title}</td>
                <td data-label="SKU" className="mono">
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
          <dl className="totals">
            <dt>Subtotal</dt>
            <dd>{money(o.subtotal, o.currency)}</dd>
            <dt>Total</dt>
            <dd className="strong">{money(o.total, o.currency)}</dd>
          </dl>
          {o.note ? (
            <>
              <h3>Note</h3>
              <p className="note">{o.note}</p>
            </>
          ) : null}
        </Panel>
        <div>
          <Panel title="Customer">
            {customer.data ? (
              <p>
                <Link to={`/stores/${slug}/customers/${customer.data.id}`} className="strong">
                  {personName(customer.data)}
                </Link>
                <br />
                <span className="muted">{customer.data.email}</span>
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
          <Panel title="Timeline">
            {history.data ? (
              <ol className="timeline">
                {history.data.map((h) => (
                  <li key={`${h.status}-${h.at}`}>
                    <Badge value={h.status} label={ORDER_STATUSES[h.status].label} />{" "}
                    <span className="small">
                      {when(h.at)} ·{" "}
                      {h.actor.kind === ActorKind.unknown ? ACTOR_KINDS.unknown.label : h.actor.name}
                    </span>
                  </li>
                ))}
              </ol>
            ) : (
              <Loading />
            )}
          </Panel>
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
                <td data-label="App">{w.app.name}</td>
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
