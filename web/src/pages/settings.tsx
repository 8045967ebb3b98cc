import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client.ts";
import type { Order, Store, StoreSettingsBody } from "../api/types.ts";
import {
  type AddressDraft,
  AddressFieldset,
  addressBody,
  addressErrors,
  draftOf,
  emptyAddress,
  isBlank,
} from "../components/address.tsx";
import { LocationsPanel } from "../components/locations.tsx";
import {
  Field,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  TextField,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import { ContactEmail, CURRENCY_CODES, OrderNumberPrefix, Scope, StoreName, timeZones } from "../contract.ts";
import { useSlug, useStore } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

const currencyNames = new Intl.DisplayNames(undefined, { type: "currency" });
const CURRENCIES = CURRENCY_CODES.map((code) => ({ code, name: currencyNames.of(code) ?? code }));
const ZONES = timeZones();

/** The store's settings: what it is called, how customers reach it, its money, its day and its order names. */
export function SettingsPage() {
  const slug = useSlug();
  const store = useStore(slug);
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="How your store presents itself, counts its days and names its orders."
      />
      {store.data ? (
        <SettingsForm key={store.data.updatedAt} slug={slug} store={store.data} />
      ) : (
        <Loading what="Loading the settings" />
      )}
      <LocationsPanel slug={slug} />
    </>
  );
}

function SettingsForm({ slug, store }: { slug: string; store: Store }) {
  const [name, setName] = useState(store.name);
  const [email, setEmail] = useState(store.contactEmail ?? "");
  const [currency, setCurrency] = useState(store.currency);
  const [timeZone, setTimeZone] = useState(store.timeZone);
  const [prefix, setPrefix] = useState(store.orderNumberPrefix);
  const [taxesIncluded, setTaxesIncluded] = useState(store.taxesIncluded);
  const [taxShipping, setTaxShipping] = useState(store.taxShipping);
  const [address, setAddress] = useState<AddressDraft>(
    store.address ? draftOf(store.address) : emptyAddress(store.name),
  );
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "Saving the settings failed." });
  const hasAddress = !isBlank(address);
  // The currency is fixed once the store has an order (the server refuses the change with 409):
  // the select says so instead of offering a change that cannot be saved.
  const anyOrder = useQuery({
    queryKey: ["orders", slug, "any"],
    queryFn: async () =>
      (
        await unwrap<Order[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/orders", {
            params: { path: { slug }, query: { limit: 1 } },
          }),
        )
      ).data.length > 0,
  });
  const currencyFixed = anyOrder.data === true;

  /** Only what changed is sent: an unchanged currency is never re-checked against the orders. */
  const changes = (): StoreSettingsBody => {
    const body: StoreSettingsBody = {};
    if (name.trim() !== store.name) body.name = name.trim();
    const contact = email.trim() || null;
    if (contact !== store.contactEmail) body.contactEmail = contact;
    if (currency !== store.currency) body.currency = currency;
    if (timeZone !== store.timeZone) body.timeZone = timeZone;
    if (prefix.trim() !== store.orderNumberPrefix) body.orderNumberPrefix = prefix.trim();
    if (taxesIncluded !== store.taxesIncluded) body.taxesIncluded = taxesIncluded;
    if (taxShipping !== store.taxShipping) body.taxShipping = taxShipping;
    const next = hasAddress ? addressBody(address) : null;
    if (JSON.stringify(next) !== JSON.stringify(store.address ? addressBody(draftOf(store.address)) : null))
      body.address = next;
    return body;
  };

  const submit = handle(
    () => [
      ...validate([
        ["name", StoreName, name.trim()],
        ["orderNumberPrefix", OrderNumberPrefix, prefix.trim()],
        ...(email.trim() ? ([["contactEmail", ContactEmail, email.trim()]] as const) : []),
      ]),
      ...(hasAddress ? addressErrors("address", address) : []),
    ],
    async () => {
      const body = changes();
      if (Object.keys(body).length === 0) return notify("Nothing to save");
      await unwrap(api.PATCH("/api/v1/dashboard/stores/{slug}", { params: { path: { slug } }, body }));
      notify("Settings saved");
      await queryClient.invalidateQueries({ queryKey: ["store", slug] });
      await queryClient.invalidateQueries({ queryKey: ["stores"] });
      await queryClient.invalidateQueries({ queryKey: ["overview", slug] });
    },
  );

  return (
    <form className="settings" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <Panel title="Store details">
        <div className="form grid">
          <TextField label="Store name" value={name} onChange={setName} error={errors.of("name")} />
          <TextField
            label="Contact e-mail"
            type="email"
            value={email}
            onChange={setEmail}
            hint="Where customers and apps reach you. Optional."
            error={errors.of("contactEmail")}
          />
        </div>
      </Panel>
      <Panel title="Money and time">
        <div className="form grid">
          <Field
            label="Currency"
            hint={
              currencyFixed
                ? `Fixed: the store has orders, and every total is in ${store.currency}.`
                : "Every price and order total is in it. It can change only until the first order; prices keep their amounts."
            }
            error={errors.of("currency")}
          >
            {({ id, describedBy, invalid }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                value={currency}
                disabled={currencyFixed}
                onChange={(e) => setCurrency(e.target.value)}
              >
                {CURRENCIES.map((c) => (
                  <option key={c.code} value={c.code}>
                    {c.code} — {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Time zone"
            hint="The overview's “today”, “last 7 days” and “last 30 days” are counted in it."
            error={errors.of("timeZone")}
          >
            {({ id, describedBy, invalid }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                value={timeZone}
                onChange={(e) => setTimeZone(e.target.value)}
              >
                {(ZONES.includes(timeZone) ? ZONES : [timeZone, ...ZONES]).map((z) => (
                  <option key={z} value={z}>
                    {z.replaceAll("_", " ")}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <TextField
            label="Order number prefix"
            value={prefix}
            onChange={setPrefix}
            hint={`New orders are named ${prefix.trim() || ""}1001, ${prefix.trim() || ""}1002, …; orders placed before keep their names.`}
            error={errors.of("orderNumberPrefix")}
          />
        </div>
      </Panel>
      <Panel title="Taxes">
        <div className="form grid">
          <label className="check">
            <input
              type="checkbox"
              checked={taxesIncluded}
              onChange={(e) => setTaxesIncluded(e.target.checked)}
            />{" "}
            My prices include tax (the tax is found inside them; otherwise it is added at checkout)
          </label>
          <label className="check">
            <input type="checkbox" checked={taxShipping} onChange={(e) => setTaxShipping(e.target.checked)} />{" "}
            Charge tax on shipping
          </label>
          <p className="hint">
            Orders placed after a change follow it. The rates per country and region are set through the API
            (Dashboard: taxes) for now.
          </p>
        </div>
      </Panel>
      <Panel title="Store address">
        <div className="form grid">
          <AddressFieldset
            legend="Where your parcels leave from"
            hint="Optional. Leave the street and city empty to have no address."
            value={address}
            onChange={setAddress}
            errorOf={errors.of}
            prefix="address"
          />
        </div>
      </Panel>
      <div className="settings-actions">
        <FormActions busy={busy} label="Save settings" busyLabel="Saving…" end />
      </div>
    </form>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/settings",
    element: <SettingsPage />,
    storeMenu: { label: "Settings", order: 70, scope: Scope.manage_store },
  }),
];
