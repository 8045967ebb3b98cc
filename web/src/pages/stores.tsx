import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, Navigate, useNavigate } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useStores } from "../api/session.ts";
import type { Store } from "../api/types.ts";
import {
  Empty,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  TextField,
  useSubmit,
} from "../components/ui.tsx";
import { STORE_ROLES, StoreName, StoreRole, StoreSlug } from "../contract.ts";
import { slugify } from "../lib/format.ts";
import { useIdempotencyKey } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

export function StoresPage() {
  const stores = useStores();
  return (
    <>
      <PageHeader
        title="Your stores"
        subtitle="The stores you own or work in. Each has its own products, customers, orders, apps and keys."
      />
      {stores.isPending ? (
        <Loading what="Loading your stores" />
      ) : stores.data?.length ? (
        <ul className="store-grid">
          {stores.data.map((s) => (
            <li key={s.slug}>
              <Link className="store-card" to={`/stores/${s.slug}`}>
                <span className="store-name">{s.name}</span>
                <span className="muted small mono">{s.slug}</span>
                <span className="muted small">
                  Prices in {s.currency}
                  {s.role === StoreRole.owner ? null : ` · ${STORE_ROLES[s.role].label}`}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <Empty>You have no store yet. Create your first one below.</Empty>
      )}
      <CreateStore />
    </>
  );
}

function CreateStore() {
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [currency, setCurrency] = useState("USD");
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Creating the store failed.", answered });
  const submit = handle(
    () =>
      validate([
        ["name", StoreName, name.trim()],
        ["slug", StoreSlug, slug],
      ]),
    async () => {
      const { data } = await unwrap<Store>(
        api.POST("/api/v1/dashboard/stores", {
          body: { name: name.trim(), slug, currency: currency.trim().toUpperCase() },
          headers: { "idempotency-key": key },
        }),
      );
      await queryClient.invalidateQueries({ queryKey: ["stores"] });
      navigate(`/stores/${data.slug}/products`);
    },
  );

  return (
    <Panel title="Create a store">
      <form className="form grid" onSubmit={submit} noValidate>
        <FormAlert message={errors.message} />
        <TextField
          label="Store name"
          value={name}
          onChange={(v) => {
            setName(v);
            if (!slugEdited) setSlug(slugify(v));
          }}
          error={errors.of("name")}
        />
        <TextField
          label="Slug"
          value={slug}
          onChange={(v) => {
            setSlug(v);
            setSlugEdited(true);
          }}
          hint="Part of the store's addresses; lowercase letters, digits and hyphens."
          error={errors.of("slug")}
        />
        <TextField
          label="Currency"
          value={currency}
          onChange={setCurrency}
          hint="ISO 4217 code, e.g. USD, SAR, EUR."
          error={errors.of("currency")}
        />
        <FormActions busy={busy} label="Create store" busyLabel="Creating…" />
      </form>
    </Panel>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({ path: "/", element: <StoresPage /> }),
  definePage({ path: "/stores", element: <Navigate to="/" replace /> }),
];
