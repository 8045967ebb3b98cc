import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, unwrap } from "../api/client.ts";
import type { Customer, Order } from "../api/types.ts";
import {
  type AddressDraft,
  AddressFieldset,
  AddressView,
  addressBody,
  addressErrors,
  addressLine,
  draftOf,
  emptyAddress,
} from "../components/address.tsx";
import { type Choice, limitOf, ProductPicker, stockText } from "../components/product-picker.tsx";
import { parseTags, TagsField, tagErrors } from "../components/tags.tsx";
import {
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
import { MAX_LINE_ITEMS, OrderNote, Quantity } from "../contract.ts";
import { money, personName } from "../lib/format.ts";
import { searchParam, useDebounced, useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { formatMinor, toMinor } from "../lib/money.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

interface Line extends Choice {
  quantity: string;
}

/** Where the order ships: one of the customer's addresses, another one, or nowhere. */
type ShipTo = { kind: "saved"; index: number } | { kind: "other" } | { kind: "none" };

/**
 * A new order, as a merchant takes one on the phone: find the customer, search and add products
 * with their quantities (prices, stock and totals stay the server's: the form only previews them),
 * choose where it ships, add a note and tags.
 */
export function NewOrderPage() {
  const slug = useSlug();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [customerQuery, setCustomerQuery] = useState("");
  const [customer, setCustomer] = useState<Customer | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [shipTo, setShipTo] = useState<ShipTo>({ kind: "saved", index: 0 });
  const [other, setOther] = useState<AddressDraft>(emptyAddress());
  const [note, setNote] = useState("");
  const [tags, setTags] = useState("");
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Placing the order failed.", answered });
  const cq = useDebounced(customerQuery.trim());

  const customers = useQuery({
    queryKey: ["customers", slug, "picker", cq],
    queryFn: async () =>
      (
        await unwrap<Customer[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug }, query: { limit: 8, q: searchParam(cq) } },
          }),
        )
      ).data.filter((c) => !c.anonymizedAt),
  });
  const currency = lines[0]?.product.currency ?? "";
  const subtotal = lines.reduce((sum, l) => {
    const q = Number(l.quantity);
    return Number.isInteger(q) && q > 0 ? sum + toMinor(l.variant.price, currency) * q : sum;
  }, 0);
  const saved = customer?.addresses ?? [];
  // A choice the customer no longer offers (another customer was chosen) falls back to the first.
  const ship: ShipTo =
    shipTo.kind === "saved" && shipTo.index >= saved.length
      ? saved.length
        ? { kind: "saved", index: 0 }
        : { kind: "none" }
      : shipTo;

  function choose(c: Customer) {
    setCustomer(c);
    // A customer without an address: no shipping until the merchant enters one (a choice in sight).
    setShipTo(c.addresses.length ? { kind: "saved", index: 0 } : { kind: "none" });
    setOther(emptyAddress(personName(c)));
  }
  function add(c: Choice) {
    if (lines.some((l) => l.variant.id === c.variant.id)) return;
    setLines([...lines, { ...c, quantity: "1" }]);
  }

  const submit = handle(
    () => {
      const invalid = validate([
        ["note", OrderNote, note],
        ...lines.map((l, i) => {
          const q = Number(l.quantity);
          return [`lineItems.${i}.quantity`, Quantity, Number.isInteger(q) ? q : Number.NaN] as const;
        }),
      ]);
      if (!customer) invalid.push({ field: "customerId", message: "choose a customer" });
      if (lines.length === 0) invalid.push({ field: "lineItems", message: "add at least one product" });
      lines.forEach((l, i) => {
        if (Number(l.quantity) > limitOf(l.variant))
          invalid.push({ field: `lineItems.${i}.quantity`, message: `only ${l.variant.available} in stock` });
      });
      if (ship.kind === "other") invalid.push(...addressErrors("shippingAddress", other));
      invalid.push(...tagErrors("tags", parseTags(tags)));
      return invalid;
    },
    async () => {
      const shippingAddress =
        ship.kind === "none" ? null : ship.kind === "other" ? addressBody(other) : undefined;
      const { data } = await unwrap<Order>(
        api.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug } },
          body: {
            customerId: customer!.id,
            lineItems: lines.map((l) => ({ variantId: l.variant.id, quantity: Number(l.quantity) })),
            // A saved address is the customer's default when left out; another saved one is sent.
            ...(ship.kind === "saved" && ship.index > 0
              ? { shippingAddress: addressBody(draftOf(saved[ship.index])) }
              : shippingAddress !== undefined
                ? { shippingAddress }
                : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
            ...(parseTags(tags).length ? { tags: parseTags(tags) } : {}),
          },
          headers: { "idempotency-key": key },
        }),
      );
      notify(`Order ${data.name} placed`);
      await queryClient.invalidateQueries({ queryKey: ["orders", slug] });
      await queryClient.invalidateQueries({ queryKey: ["products", slug] });
      await queryClient.invalidateQueries({ queryKey: ["overview", slug] });
      navigate(`/stores/${slug}/orders/${data.id}`);
    },
  );

  return (
    <>
      <PageHeader
        title="New order"
        subtitle={
          <>
            Prices, stock and totals are the catalogue's at the moment you place it.{" "}
            <Link to={`/stores/${slug}/orders`}>Back to orders</Link>
          </>
        }
      />
      <form className="order-form" onSubmit={submit} noValidate>
        <FormAlert message={errors.message} />
        <div className="columns">
          <div>
            <Panel title="Products">
              <ProductPicker
                slug={slug}
                isAdded={(variantId) => lines.some((l) => l.variant.id === variantId)}
                full={lines.length >= MAX_LINE_ITEMS}
                onAdd={add}
              />
              <h3 className="section-title">In this order</h3>
              {errors.of("lineItems") && lines.length === 0 ? (
                <p className="field-error" role="alert">
                  {errors.of("lineItems")}
                </p>
              ) : null}
              {lines.length === 0 ? (
                <p className="muted">No products yet: add them from the list above.</p>
              ) : (
                <ul className="order-lines" aria-label="Order lines">
                  {lines.map((l, i) => {
                    const q = Number(l.quantity);
                    const lineTotal =
                      Number.isInteger(q) && q > 0 ? toMinor(l.variant.price, currency) * q : 0;
                    return (
                      <li key={l.variant.id} className="order-line">
                        <div className="order-line-title">
                          <span className="strong">{l.name}</span>
                          <span className="muted small">
                            {money(l.variant.price, currency)} each · {stockText(l.variant)}
                          </span>
                        </div>
                        <Field
                          label="Quantity"
                          error={errors.of(`lineItems.${i}.quantity`) ?? errors.of(`lineItems.${i}`)}
                          className="qty"
                        >
                          {({ id, describedBy, invalid }) => (
                            <input
                              id={id}
                              inputMode="numeric"
                              aria-label={`Quantity of ${l.name}`}
                              aria-describedby={describedBy}
                              aria-invalid={invalid || undefined}
                              value={l.quantity}
                              onChange={(e) =>
                                setLines(
                                  lines.map((x, j) => (j === i ? { ...x, quantity: e.target.value } : x)),
                                )
                              }
                            />
                          )}
                        </Field>
                        <span className="num line-total">
                          {money(formatMinor(lineTotal, currency), currency)}
                        </span>
                        <button
                          type="button"
                          className="link remove"
                          onClick={() => setLines(lines.filter((_, j) => j !== i))}
                        >
                          Remove<span className="visually-hidden"> {l.name}</span>
                        </button>
                      </li>
                    );
                  })}
                </ul>
              )}
              <dl className="totals">
                <dt>Subtotal</dt>
                <dd className="strong">
                  {currency ? money(formatMinor(subtotal, currency), currency) : "—"}
                </dd>
              </dl>
            </Panel>
            <Panel title="Note and tags">
              <div className="form grid">
                <Field
                  label="Note"
                  hint="Kept with the order; apps see it too."
                  error={errors.of("note")}
                  className="wide"
                >
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
              </div>
            </Panel>
          </div>
          <div>
            <Panel title="Customer">
              {customer ? (
                <div className="chosen">
                  <p>
                    <span className="strong">{personName(customer)}</span>
                    <br />
                    <span className="muted">{customer.email}</span>
                  </p>
                  <button type="button" className="link" onClick={() => setCustomer(null)}>
                    Change customer
                  </button>
                </div>
              ) : (
                <>
                  <Field
                    label="Find a customer"
                    hint="Name or e-mail, 3 characters or more."
                    error={errors.of("customerId")}
                  >
                    {({ id, describedBy, invalid }) => (
                      <input
                        id={id}
                        type="search"
                        aria-describedby={describedBy}
                        aria-invalid={invalid || undefined}
                        value={customerQuery}
                        onChange={(e) => setCustomerQuery(e.target.value)}
                      />
                    )}
                  </Field>
                  {customers.isPending ? (
                    <Loading />
                  ) : customers.data?.length ? (
                    <ul className="pick-list" aria-label="Customers found">
                      {customers.data.map((c) => (
                        <li key={c.id}>
                          <span>
                            <bdi className="strong">{personName(c)}</bdi>{" "}
                            <span className="muted small">{c.email}</span>
                          </span>
                          <button type="button" className="secondary" onClick={() => choose(c)}>
                            Choose<span className="visually-hidden"> {personName(c)}</span>
                          </button>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <Empty>
                      {cq ? (
                        "No customer matches."
                      ) : (
                        <>
                          No customers yet. <Link to={`/stores/${slug}/customers`}>Add a customer</Link>
                        </>
                      )}
                    </Empty>
                  )}
                </>
              )}
            </Panel>
            <Panel title="Shipping">
              {!customer ? (
                <p className="muted">Choose the customer first: their addresses are offered here.</p>
              ) : (
                <fieldset className="checks">
                  <legend>Ship to</legend>
                  {saved.map((a, i) => (
                    <label key={addressLine(a)} className="check">
                      <input
                        type="radio"
                        name="ship-to"
                        checked={ship.kind === "saved" && ship.index === i}
                        onChange={() => setShipTo({ kind: "saved", index: i })}
                      />
                      <span className="check-text">
                        <AddressView address={a} />
                        {i === 0 ? <span className="muted small">Default address</span> : null}
                      </span>
                    </label>
                  ))}
                  <label className="check">
                    <input
                      type="radio"
                      name="ship-to"
                      checked={ship.kind === "other"}
                      onChange={() => setShipTo({ kind: "other" })}
                    />
                    <span className="check-text">{saved.length ? "Another address" : "An address"}</span>
                  </label>
                  <label className="check">
                    <input
                      type="radio"
                      name="ship-to"
                      checked={ship.kind === "none"}
                      onChange={() => setShipTo({ kind: "none" })}
                    />
                    <span className="check-text">
                      No shipping <span className="muted small">(collected, or a service)</span>
                    </span>
                  </label>
                </fieldset>
              )}
              {customer && ship.kind === "other" ? (
                <div className="form grid nested">
                  <AddressFieldset
                    legend="Shipping address"
                    value={other}
                    onChange={setOther}
                    errorOf={errors.of}
                    prefix="shippingAddress"
                  />
                </div>
              ) : null}
            </Panel>
          </div>
        </div>
        <div className="place-order">
          <FormActions busy={busy} label="Place order" busyLabel="Placing…" end />
        </div>
      </form>
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/stores/:slug/orders/new", element: <NewOrderPage /> })];
