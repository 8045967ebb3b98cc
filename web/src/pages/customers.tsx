import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useCursorList, useStoreCount } from "../api/lists.ts";
import type {
  Customer,
  CustomerBody,
  CustomerSort,
  CustomerStats,
  DataRequestSent,
  DataRequests,
  Order,
  SortLabels,
} from "../api/types.ts";
import {
  type AddressDraft,
  AddressFieldset,
  AddressView,
  addressBody,
  addressErrors,
  draftOf,
  emptyAddress,
} from "../components/address.tsx";
import { AppDataPanel } from "../components/app-data.tsx";
import { CursorTable, ListTools } from "../components/list.tsx";
import { parseTags, TagList, TagsField, tagErrors } from "../components/tags.tsx";
import {
  Badge,
  Field,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  Pending,
  TextField,
  useConfirm,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  CustomerNote,
  DELIVERY_STATUSES,
  DeliveryStatus,
  Email,
  FirstName,
  LastName,
  MAX_CUSTOMER_ADDRESSES,
  ORDER_STATUSES,
  PAGE_SIZE,
  Phone,
  Scope,
} from "../contract.ts";
import { money, personName, when } from "../lib/format.ts";
import { searchParam, useIdempotencyKey, useSlug, useStore } from "../lib/hooks.ts";
import { useListState } from "../lib/list-state.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

const SORTS: SortLabels<CustomerSort> = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  "-updatedAt": "Recently changed first",
  updatedAt: "Least recently changed first",
  lastName: "Last name, A to Z",
  "-lastName": "Last name, Z to A",
  email: "E-mail, A to Z",
  "-email": "E-mail, Z to A",
};

export function CustomersPage() {
  const slug = useSlug();
  const currency = useStore(slug).data?.currency;
  const state = useListState({ sorts: SORTS, defaultSort: "-createdAt" });
  const { search, setSearch, sort, setSort } = state;
  const q = searchParam(state.q);
  const queryClient = useQueryClient();
  const total = useStoreCount(slug, "customers", !q);
  const list = useCursorList<Customer>(
    ["customers", slug, q, sort],
    (cursor) =>
      unwrap<Customer[], { nextCursor: string | null }>(
        api.GET("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor, q, sort } },
        }),
      ),
    { pages: state.pages, onPages: state.setPages },
  );
  return (
    <>
      <PageHeader title="Customers" subtitle="The people who buy from your store." />
      <Panel label="Customer list">
        <ListTools
          search={search}
          applied={q !== undefined}
          onSearch={setSearch}
          searchLabel="Search by name or e-mail"
          sort={sort}
          onSort={setSort}
          sorts={SORTS}
        />
        <CursorTable
          list={list}
          total={total}
          filtered={!!q}
          noun="customers"
          empty={q ? `No customer matches “${q}”.` : "No customers yet. Add one below."}
          headers={[
            "Name",
            "E-mail",
            "Ships to",
            { label: "Orders", num: true },
            { label: "Amount spent", num: true },
            "Since",
          ]}
        >
          {(c) => (
            <tr key={c.id}>
              <td data-label="Name" className="user-text">
                <Link to={`/stores/${slug}/customers/${c.id}`} className="strong">
                  {c.anonymizedAt ? "Deleted customer" : personName(c)}
                </Link>
              </td>
              <td data-label="E-mail" className="user-text">
                {c.anonymizedAt ? "—" : c.email}
              </td>
              <td data-label="Ships to" className="small user-text">
                {c.defaultAddress ? (
                  <>
                    <bdi>{c.defaultAddress.city}</bdi>, {c.defaultAddress.country}
                  </>
                ) : (
                  "—"
                )}
              </td>
              <td data-label="Orders" className="num">
                {c.ordersCount}
              </td>
              <td data-label="Amount spent" className="num">
                {currency ? money(c.amountSpent, currency) : <Pending what="Loading the amount" />}
              </td>
              <td data-label="Since" className="small">
                {when(c.createdAt)}
              </td>
            </tr>
          )}
        </CursorTable>
      </Panel>
      <Panel title="Add a customer">
        <CustomerForm
          slug={slug}
          onSaved={() => queryClient.invalidateQueries({ queryKey: ["customers", slug] })}
        />
      </Panel>
    </>
  );
}

function CustomerForm(props: {
  slug: string;
  customer?: Customer;
  onSaved: () => unknown;
  onCancel?: () => void;
}) {
  const c = props.customer;
  const [firstName, setFirstName] = useState(c?.firstName ?? "");
  const [lastName, setLastName] = useState(c?.lastName ?? "");
  const [email, setEmail] = useState(c?.email ?? "");
  const [phone, setPhone] = useState(c?.phone ?? "");
  const [note, setNote] = useState(c?.note ?? "");
  const [tags, setTags] = useState((c?.tags ?? []).join(", "));
  const [addresses, setAddresses] = useState<AddressDraft[]>((c?.addresses ?? []).map((a) => draftOf(a)));
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({
    failure: "Saving failed.",
    answered: c ? undefined : answered,
  });
  const body: CustomerBody & { email: string; firstName: string; lastName: string } = {
    firstName: firstName.trim(),
    lastName: lastName.trim(),
    email: email.trim(),
    phone: phone.trim() || null,
    note,
    tags: parseTags(tags),
    addresses: addresses.map(addressBody),
  };
  const fullName = `${body.firstName} ${body.lastName}`.trim();
  const submit = handle(
    () => [
      ...validate([
        ["firstName", FirstName, body.firstName],
        ["lastName", LastName, body.lastName],
        ["email", Email, body.email],
        ["note", CustomerNote, note],
        ...(body.phone ? ([["phone", Phone, body.phone]] as const) : []),
      ]),
      ...tagErrors("tags", body.tags ?? []),
      ...addresses.flatMap((a, i) => addressErrors(`addresses.${i}`, a)),
    ],
    async () => {
      if (c) {
        await unwrap(
          api.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: props.slug, id: c.id } },
            body,
          }),
        );
        notify("Changes saved");
      } else {
        await unwrap(
          api.POST("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug: props.slug } },
            body,
            headers: { "idempotency-key": key },
          }),
        );
        notify(`${personName(body)} added`);
        setFirstName("");
        setLastName("");
        setEmail("");
        setPhone("");
        setNote("");
        setTags("");
        setAddresses([]);
      }
      await props.onSaved();
    },
  );

  const update = (i: number, next: AddressDraft) =>
    setAddresses(addresses.map((a, j) => (j === i ? next : a)));
  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="First name"
        value={firstName}
        onChange={setFirstName}
        autoComplete="off"
        error={errors.of("firstName")}
      />
      <TextField
        label="Last name"
        value={lastName}
        onChange={setLastName}
        autoComplete="off"
        error={errors.of("lastName")}
      />
      <TextField
        label="E-mail"
        type="email"
        value={email}
        onChange={setEmail}
        autoComplete="off"
        error={errors.of("email")}
      />
      <TextField
        label="Phone"
        type="tel"
        value={phone}
        onChange={setPhone}
        hint="Optional."
        error={errors.of("phone")}
      />
      <Field label="Note" hint="Optional; for you and your apps." error={errors.of("note")} className="wide">
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={2}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </Field>
      <TagsField value={tags} onChange={setTags} error={errors.of("tags")} />
      {addresses.map((a, i) => (
        // Positions are what the API names errors by (addresses.0.city), so they key the list.
        // biome-ignore lint/suspicious/noArrayIndexKey: an address has no id; its place is its identity here.
        <div key={i} className="wide address-item">
          <AddressFieldset
            legend={i === 0 ? "Default shipping address" : `Address ${i + 1}`}
            value={a}
            onChange={(next) => update(i, next)}
            errorOf={errors.of}
            prefix={`addresses.${i}`}
          />
          <div className="actions">
            {i > 0 ? (
              <button
                type="button"
                className="secondary"
                onClick={() => setAddresses([a, ...addresses.filter((_, j) => j !== i)])}
              >
                Make default
              </button>
            ) : null}
            <button
              type="button"
              className="link"
              onClick={() => setAddresses(addresses.filter((_, j) => j !== i))}
            >
              Remove this address
            </button>
          </div>
        </div>
      ))}
      {addresses.length < MAX_CUSTOMER_ADDRESSES ? (
        <div className="wide">
          <button
            type="button"
            className="secondary"
            onClick={() => setAddresses([...addresses, emptyAddress(fullName)])}
          >
            {addresses.length ? "Add another address" : "Add an address"}
          </button>
        </div>
      ) : null}
      <FormActions busy={busy} label={c ? "Save changes" : "Add customer"} onCancel={props.onCancel} />
    </form>
  );
}

export function CustomerPage() {
  const slug = useSlug();
  const { id = "" } = useParams();
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const navigate = useNavigate();
  const customer = useQuery({
    queryKey: ["customer", slug, id],
    queryFn: async () =>
      (
        await unwrap<Customer>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const stats = useQuery({
    queryKey: ["customer", slug, id, "stats"],
    queryFn: async () =>
      (
        await unwrap<CustomerStats>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/stats", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const orders = useCursorList<Order>(["orders", slug, "customer", id], (cursor) =>
    unwrap<Order[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor, customerId: id } },
      }),
    ),
  );

  if (customer.isPending) return <Loading what="Loading the customer" />;
  if (!customer.data) {
    return (
      <>
        <PageHeader title="Customer not found" />
        <Link to={`/stores/${slug}/customers`}>Back to customers</Link>
      </>
    );
  }
  const c = customer.data;
  const anonymized = Boolean(c.anonymizedAt);

  async function remove() {
    const hasOrders = (stats.data?.ordersCount ?? 0) > 0;
    const ok = await confirm({
      title: `Delete ${personName(c)}?`,
      message: hasOrders
        ? `They have ${stats.data?.ordersCount} order(s), which stay: their name, e-mail address and phone are erased instead. This cannot be undone.`
        : "They have no orders; the customer is removed. This cannot be undone.",
      confirmLabel: "Delete customer",
    });
    if (!ok) return;
    try {
      const { data } = await unwrap<{ outcome: string }>(
        api.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", { params: { path: { slug, id } } }),
      );
      notify(data.outcome === "anonymized" ? "Customer anonymised; their orders stay" : "Customer deleted");
      await queryClient.invalidateQueries({ queryKey: ["customers", slug] });
      if (data.outcome === "anonymized")
        await queryClient.invalidateQueries({ queryKey: ["customer", slug, id] });
      else navigate(`/stores/${slug}/customers`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Deleting failed.", "error");
    }
  }

  return (
    <>
      <PageHeader
        title={anonymized ? "Deleted customer" : personName(c)}
        subtitle={anonymized ? `Personal data erased ${when(c.anonymizedAt)}` : c.email}
        actions={
          anonymized ? null : (
            <>
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="danger" onClick={remove}>
                Delete
              </button>
            </>
          )
        }
      />
      <div className="stat-grid">
        <div className="stat">
          <p className="muted small">Orders</p>
          <p className="stat-value">{stats.data?.ordersCount ?? "…"}</p>
        </div>
        <div className="stat">
          <p className="muted small">Spent</p>
          <p className="stat-value">{stats.data ? money(stats.data.totalSpent, stats.data.currency) : "…"}</p>
        </div>
        <div className="stat">
          <p className="muted small">Last order</p>
          <p className="stat-value small">{stats.data ? when(stats.data.lastOrderAt) : "…"}</p>
        </div>
      </div>
      {editing ? (
        <Panel title="Edit customer">
          <CustomerForm
            slug={slug}
            customer={c}
            onSaved={async () => {
              setEditing(false);
              await queryClient.invalidateQueries({ queryKey: ["customer", slug, id] });
              await queryClient.invalidateQueries({ queryKey: ["customers", slug] });
            }}
            onCancel={() => setEditing(false)}
          />
        </Panel>
      ) : (
        <div className="columns">
          <Panel title="Details">
            <dl className="details">
              <dt>E-mail</dt>
              <dd>{anonymized ? "—" : c.email}</dd>
              <dt>Phone</dt>
              <dd>{c.phone ?? "—"}</dd>
              <dt>Customer since</dt>
              <dd>{when(c.createdAt)}</dd>
              <dt>Note</dt>
              <dd className="note">{c.note || <span className="muted">None</span>}</dd>
              <dt>Tags</dt>
              <dd>
                <TagList tags={c.tags} />
              </dd>
            </dl>
          </Panel>
          <Panel title="Addresses">
            {c.addresses.length ? (
              <ul className="address-list">
                {c.addresses.map((a, i) => (
                  <li key={`${a.line1}-${a.city}-${a.name}`}>
                    {i === 0 ? <p className="muted small">Default shipping address</p> : null}
                    <AddressView address={a} />
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No address yet.</p>
            )}
          </Panel>
        </div>
      )}
      <AppDataPanel slug={slug} kind="customer" id={c.id} />
      <DataRequestsPanel slug={slug} id={c.id} anonymized={anonymized} />
      <Panel title="Orders">
        <CursorTable
          list={orders}
          total={c.ordersCount}
          noun="orders"
          empty="No orders yet."
          headers={["Order", { label: "Total", num: true }, "Status", "Placed"]}
        >
          {(o) => (
            <tr key={o.id}>
              <td data-label="Order">
                <Link to={`/stores/${slug}/orders/${o.id}`}>{o.name}</Link>
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
            </tr>
          )}
        </CursorTable>
      </Panel>
    </>
  );
}

/**
 * The privacy requests about a customer: ask the installed apps (with read_customers) what they hold
 * on them (`customer.data_request` to each app's privacy endpoint), and see whom was asked, when,
 * and how each delivery went.
 */
function DataRequestsPanel({ slug, id, anonymized }: { slug: string; id: string; anonymized: boolean }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const confirm = useConfirm();
  const [busy, setBusy] = useState(false);
  const key = ["customer", slug, id, "data-requests"];
  const requests = useQuery({
    queryKey: key,
    queryFn: async () =>
      (
        await unwrap<DataRequests>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
            params: { path: { slug, id } },
          }),
        )
      ).data,
    // Deliveries move on by themselves: refresh while one is still pending.
    refetchInterval: (q) =>
      q.state.data?.requests.some((r) => r.apps.some((a) => a.delivery.status === DeliveryStatus.pending))
        ? 3000
        : false,
  });

  async function ask() {
    const ok = await confirm({
      title: "Ask the apps for this customer's data?",
      message:
        "Every installed app allowed to read customers is sent a data request at its privacy endpoint, with this customer's id and order ids. Each app reports to you what it holds.",
      confirmLabel: "Send data request",
    });
    if (!ok) return;
    setBusy(true);
    try {
      const { data } = await unwrap<DataRequestSent>(
        api.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
          params: { path: { slug, id } },
        }),
      );
      notify(
        data.apps.length
          ? `Data request sent to ${data.apps.map((a) => a.app.name).join(", ")}`
          : "No installed app has a privacy endpoint to ask",
      );
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Sending the data request failed.", "error");
    } finally {
      setBusy(false);
    }
  }

  const data = requests.data;
  return (
    <Panel title="Data requests">
      <p className="muted small">
        Ask the installed apps what they hold on this customer (for a customer's access request). Deleting the
        customer tells them to erase it.
      </p>
      {anonymized ? null : (
        <p>
          <button type="button" className="secondary" onClick={ask} disabled={busy}>
            Ask apps for this customer's data
          </button>
        </p>
      )}
      {data?.appsWithoutEndpoint.length ? (
        <p className="warning small">
          Cannot be asked (no privacy endpoint): {data.appsWithoutEndpoint.map((a) => a.name).join(", ")}.
        </p>
      ) : null}
      {requests.isPending ? (
        <Loading />
      ) : data?.requests.length ? (
        <ul className="app-data">
          {data.requests.map((r) => (
            <li key={r.id}>
              <p className="strong">Asked {when(r.requestedAt)}</p>
              {r.apps.length ? (
                <ul>
                  {r.apps.map((a) => (
                    <li key={a.app.clientId}>
                      {a.app.name}{" "}
                      <Badge value={a.delivery.status} label={DELIVERY_STATUSES[a.delivery.status].label} />{" "}
                      <span className="muted small">
                        {a.delivery.lastStatusCode
                          ? `HTTP ${a.delivery.lastStatusCode}`
                          : (a.delivery.lastError ?? "")}
                        {a.delivery.completedAt ? `, ${when(a.delivery.completedAt)}` : ""}
                      </span>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="muted small">No app had a privacy endpoint.</p>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No data request yet.</p>
      )}
    </Panel>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/customers",
    element: <CustomersPage />,
    storeMenu: { label: "Customers", order: 40, scope: Scope.read_customers },
  }),
  definePage({ path: "/stores/:slug/customers/:id", element: <CustomerPage /> }),
];
