import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import type {
  InventoryLevel,
  InventorySetBody,
  Location,
  Product,
  ProductOption,
  ProductVariant,
} from "../api/types.ts";
import { AppDataList } from "../components/app-data.tsx";
import { Table } from "../components/list.tsx";
import { ProductImages, ProductPicture } from "../components/product-images.tsx";
import {
  Badge,
  Field,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  INVENTORY_REASONS,
  InventoryQuantity,
  type InventoryReason,
  MAX_OPTIONS,
  Money,
  OptionName,
  OptionValue,
  PRODUCT_STATUSES,
  WRITABLE_INVENTORY_REASONS,
} from "../contract.ts";
import { when } from "../lib/format.ts";
import { useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { fieldError } from "../lib/validate.ts";
import { ProductForm, priceRange } from "./products.tsx";

/** A reason a merchant may give for setting stock (the platform's own are not offered). */
type WritableReason = InventorySetBody["reason"];

/** The page's own queries: the product, the store's locations, and the product's stock per location. */
function useProductData(slug: string, id: string) {
  const product = useQuery({
    queryKey: ["products", slug, "one", id],
    queryFn: async () =>
      (
        await unwrap<Product>(
          api.GET("/api/v1/dashboard/stores/{slug}/products/{id}", { params: { path: { slug, id } } }),
        )
      ).data,
  });
  const locations = useQuery({
    queryKey: ["locations", slug],
    queryFn: async () =>
      (
        await unwrap<Location[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path: { slug } } }),
        )
      ).data,
  });
  const levels = useQuery({
    queryKey: ["inventory-levels", slug, id],
    queryFn: async () => {
      // Every page of the product's levels (variants × locations can pass one page).
      const all: InventoryLevel[] = [];
      let cursor: string | undefined;
      do {
        const { data, meta } = await unwrap<InventoryLevel[], { nextCursor?: string | null }>(
          api.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
            params: { path: { slug }, query: { productId: id, limit: 250, cursor } },
          }),
        );
        all.push(...data);
        cursor = meta?.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });
  return { product, locations, levels };
}

/**
 * A product's page (issue 30): its fields, its options (up to three, each with its values), and
 * its variants as a grid: prices edited in place and saved together, and the stock at each active
 * location set with compare-and-set (what the merchant saw is what is replaced, or nothing is).
 */
export function ProductPage() {
  const slug = useSlug();
  const { id = "" } = useParams();
  const { product, locations, levels } = useProductData(slug, id);
  const queryClient = useQueryClient();

  if (product.isPending) return <Loading what="Loading the product" />;
  if (!product.data) {
    return (
      <>
        <PageHeader title="Product not found" />
        <Link to={`/stores/${slug}/products`}>Back to products</Link>
      </>
    );
  }
  const p = product.data;
  const active = (locations.data ?? []).filter((l) => l.isActive);
  return (
    <>
      <PageHeader
        title={p.title}
        subtitle={
          <>
            <Badge value={p.status} label={PRODUCT_STATUSES[p.status].label} /> ·{" "}
            <Link to={`/stores/${slug}/products`}>Back to products</Link>
          </>
        }
      />
      <section className="panel product-hero" aria-label="Summary">
        <div className="hero-image">
          {p.images[0] ? (
            <ProductPicture
              image={p.images[0]}
              sizes="(max-width: 700px) 100vw, 420px"
              fallbackAlt={p.title}
            />
          ) : (
            <div className="no-image">
              <span>No image yet</span>
            </div>
          )}
        </div>
        <dl className="details">
          <dt>Price</dt>
          <dd>{priceRange(p)}</dd>
          <dt>Available</dt>
          <dd>{p.totalAvailable}</dd>
          <dt>Variants</dt>
          <dd>{p.variants.length}</dd>
          <dt>Vendor</dt>
          <dd className="user-text">{p.vendor || "—"}</dd>
          <dt>Product type</dt>
          <dd className="user-text">{p.productType || "—"}</dd>
          <dt>Tags</dt>
          <dd className="user-text">{p.tags.length ? p.tags.join(", ") : "—"}</dd>
          <dt>Changed</dt>
          <dd>{when(p.updatedAt)}</dd>
        </dl>
      </section>
      <Panel title="Images">
        <ProductImages slug={slug} product={p} />
      </Panel>
      <Panel title="Details">
        <ProductForm
          key={p.id}
          slug={slug}
          currency={p.currency}
          product={p}
          onSaved={() => queryClient.invalidateQueries({ queryKey: ["products", slug] })}
        />
      </Panel>
      <Panel title="Options">
        <OptionsEditor key={JSON.stringify(p.options)} slug={slug} product={p} />
      </Panel>
      <Panel title="Variants">
        {locations.isPending || levels.isPending ? (
          <Loading what="Loading stock" />
        ) : (
          <VariantGrid
            // Made anew only when the variants themselves change (options edited): keyed by the
            // product's updatedAt, a save's refresh landing after the merchant began typing the
            // next change remade the grid and dropped what was typed (a loaded test run saw it).
            key={p.variants.map((v) => v.id).join()}
            slug={slug}
            product={p}
            locations={active}
            levels={levels.data ?? []}
          />
        )}
      </Panel>
      <Panel title="App data">
        <AppDataList slug={slug} kind="product" id={p.id} />
      </Panel>
    </>
  );
}

interface OptionDraft {
  name: string;
  /** The values as typed: comma-separated. */
  values: string;
}

const splitValues = (text: string) =>
  text
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);

/** The options (names and values, in order), saved together as the product's new options. */
function OptionsEditor(props: { slug: string; product: Product }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [drafts, setDrafts] = useState<OptionDraft[]>(() =>
    props.product.options.map((o) => ({ name: o.name, values: o.values.join(", ") })),
  );
  const { errors, busy, handle } = useSubmit({ failure: "Saving the options failed." });
  const change = (i: number, patch: Partial<OptionDraft>) =>
    setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const options: ProductOption[] = drafts.map((d) => ({
    name: d.name.trim(),
    values: splitValues(d.values),
  }));

  const submit = handle(
    () => {
      const invalid: { field: string; message: string }[] = [];
      options.forEach((o, i) => {
        const nameError = fieldError(OptionName, o.name);
        if (nameError) invalid.push({ field: `options.${i}.name`, message: nameError });
        else if (options.findIndex((x) => x.name.toLowerCase() === o.name.toLowerCase()) !== i)
          invalid.push({ field: `options.${i}.name`, message: "is already the name of another option" });
        if (o.values.length === 0) invalid.push({ field: `options.${i}.values`, message: "needs a value" });
        for (const v of o.values) {
          const valueError = fieldError(OptionValue, v);
          if (valueError) {
            invalid.push({ field: `options.${i}.values`, message: `“${v}” ${valueError}` });
            break;
          }
        }
      });
      return invalid;
    },
    async () => {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: props.slug, id: props.product.id } },
          body: { options },
        }),
      );
      notify("Options saved");
      await queryClient.invalidateQueries({ queryKey: ["products", props.slug] });
      await queryClient.invalidateQueries({ queryKey: ["inventory-levels", props.slug, props.product.id] });
    },
  );

  return (
    <form className="form" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <p className="muted small">
        Up to {MAX_OPTIONS} options, such as Colour, Size or Material. A value you remove removes its
        variants; a new option gives every variant its first value.
      </p>
      {drafts.length === 0 ? <p className="muted">No options: the product is sold as one variant.</p> : null}
      {drafts.map((d, i) => (
        <fieldset
          // biome-ignore lint/suspicious/noArrayIndexKey: the drafts have no identity but their place
          key={i}
          className="option-row form grid"
        >
          <legend>Option {i + 1}</legend>
          <Field label={`Option ${i + 1} name`} error={errors.of(`options.${i}.name`)}>
            {({ id, describedBy, invalid }) => (
              <input
                id={id}
                value={d.name}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                onChange={(e) => change(i, { name: e.target.value })}
              />
            )}
          </Field>
          <Field
            label={`Option ${i + 1} values`}
            hint="Separated by commas, in the order shown."
            error={errors.of(`options.${i}.values`) ?? errors.of(`options.${i}`)}
          >
            {({ id, describedBy, invalid }) => (
              <input
                id={id}
                value={d.values}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                onChange={(e) => change(i, { values: e.target.value })}
              />
            )}
          </Field>
          <div className="field">
            <button
              type="button"
              className="secondary"
              onClick={() => setDrafts(drafts.filter((_, j) => j !== i))}
            >
              Remove option {i + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div className="form-actions">
        <button
          type="button"
          className="secondary"
          disabled={drafts.length >= MAX_OPTIONS}
          onClick={() => setDrafts([...drafts, { name: "", values: "" }])}
        >
          Add an option
        </button>
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : "Save options"}
        </button>
      </div>
    </form>
  );
}

/** A stock cell typed by the merchant: the value, and what it was when they read it. */
interface StockDraft {
  value: string;
  from: number;
}

const cellKey = (variantId: string, locationId: string) => `${variantId}:${locationId}`;

/**
 * The variants, one row each: the price edited in place (saved together with one PATCH of the
 * product), and the available stock at each active location (set together, compare-and-set).
 */
function VariantGrid(props: {
  slug: string;
  product: Product;
  locations: Location[];
  levels: InventoryLevel[];
}) {
  const { slug, product, locations } = props;
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [prices, setPrices] = useState<Record<string, string>>({});
  const [stock, setStock] = useState<Record<string, StockDraft>>({});
  const [reason, setReason] = useState<WritableReason>("correction");
  const [key, answered] = useIdempotencyKey();
  const priceForm = useSubmit({ failure: "Saving the prices failed." });
  const stockForm = useSubmit({ failure: "Setting the stock failed.", answered });
  const [priceSent, setPriceSent] = useState<string[]>([]);
  const [stockSent, setStockSent] = useState<string[]>([]);

  const levelOf = (v: ProductVariant, l: Location) =>
    props.levels.find((x) => x.variantId === v.id && x.locationId === l.id)?.available ?? 0;
  const changedPrices = product.variants.filter(
    (v) => prices[v.id] !== undefined && prices[v.id]!.trim() !== v.price,
  );
  const changedStock = Object.entries(stock).filter(([, d]) => d.value.trim() !== String(d.from));
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ["products", slug] });
    await queryClient.invalidateQueries({ queryKey: ["inventory-levels", slug, product.id] });
    await queryClient.invalidateQueries({ queryKey: ["overview", slug] });
  };

  const savePrices = priceForm.handle(
    () =>
      changedPrices.flatMap((v) => {
        const message = fieldError(Money, prices[v.id]!.trim());
        return message ? [{ field: `price.${v.id}`, message }] : [];
      }),
    async () => {
      const sent = changedPrices.map((v) => v.id);
      setPriceSent(sent);
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug, id: product.id } },
          body: { variants: changedPrices.map((v) => ({ id: v.id, price: prices[v.id]!.trim() })) },
        }),
      );
      notify(sent.length === 1 ? "Price saved" : `${sent.length} prices saved`);
      setPrices({});
      await refresh();
    },
  );
  const priceError = (v: ProductVariant) => {
    const i = priceSent.indexOf(v.id);
    return (
      priceForm.errors.of(`price.${v.id}`) ?? (i >= 0 ? priceForm.errors.of(`variants.${i}.price`) : null)
    );
  };

  const saveStock = stockForm.handle(
    () =>
      changedStock.flatMap(([k, d]) => {
        const n = Number(d.value.trim());
        const message = fieldError(
          InventoryQuantity,
          d.value.trim() === "" || !Number.isInteger(n) ? Number.NaN : n,
        );
        return message ? [{ field: `stock.${k}`, message }] : [];
      }),
    async () => {
      setStockSent(changedStock.map(([k]) => k));
      try {
        await unwrap(
          api.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/set", {
            params: { path: { slug } },
            headers: { "idempotency-key": key },
            body: {
              reason,
              quantities: changedStock.map(([k, d]) => {
                const [variantId = "", locationId = ""] = k.split(":");
                return { variantId, locationId, value: Number(d.value.trim()), changeFromQuantity: d.from };
              }),
            },
          }),
        );
      } catch (error) {
        // Someone else changed the stock since it was read: nothing was written; show what it is now.
        if (error instanceof ApiError && error.code === "INVENTORY_STALE") {
          await queryClient.invalidateQueries({ queryKey: ["inventory-levels", slug, product.id] });
          setStock({});
        }
        throw error;
      }
      notify(changedStock.length === 1 ? "Stock set" : `Stock set at ${changedStock.length} places`);
      setStock({});
      await refresh();
    },
  );
  const stockError = (k: string) => {
    const i = stockSent.indexOf(k);
    return stockForm.errors.of(`stock.${k}`) ?? (i >= 0 ? stockForm.errors.of(`quantities.${i}`) : null);
  };

  const headers = [
    "Variant",
    "SKU",
    { label: `Price (${product.currency})`, num: true },
    { label: "Available", num: true },
    ...locations.map((l) => ({ label: `Stock at ${l.name}`, num: true })),
  ];
  return (
    <>
      <FormAlert message={priceForm.errors.message ?? stockForm.errors.message} />
      {locations.length === 0 ? (
        <p className="muted">
          No active location: add one in <Link to={`/stores/${slug}/settings`}>Settings</Link> to keep stock.
        </p>
      ) : null}
      <div className="variant-grid">
        <Table headers={headers} caption={`Variants of ${product.title}`}>
          {product.variants.map((v) => {
            const pError = priceError(v);
            return (
              <tr key={v.id}>
                <td data-label="Variant" className="strong user-text">
                  {v.title}
                </td>
                <td data-label="SKU" className="mono user-text">
                  {v.sku ?? "—"}
                </td>
                <td data-label={`Price (${product.currency})`} className="num">
                  <input
                    className="cell-input"
                    inputMode="decimal"
                    aria-label={`Price of ${v.title}`}
                    aria-invalid={pError ? true : undefined}
                    title={pError ?? undefined}
                    value={prices[v.id] ?? v.price}
                    onChange={(e) => setPrices({ ...prices, [v.id]: e.target.value })}
                  />
                  {pError ? <span className="field-error">{pError}</span> : null}
                </td>
                <td data-label="Available" className="num">
                  {v.tracked ? v.available : "Not tracked"}
                </td>
                {locations.map((l) => {
                  const k = cellKey(v.id, l.id);
                  const shown = levelOf(v, l);
                  const sError = stockError(k);
                  return (
                    <td key={l.id} data-label={`Stock at ${l.name}`} className="num">
                      {v.tracked ? (
                        <>
                          <input
                            className="cell-input"
                            inputMode="numeric"
                            aria-label={`Stock of ${v.title} at ${l.name}`}
                            aria-invalid={sError ? true : undefined}
                            value={stock[k]?.value ?? String(shown)}
                            onChange={(e) =>
                              setStock({
                                ...stock,
                                [k]: { value: e.target.value, from: stock[k]?.from ?? shown },
                              })
                            }
                          />
                          {sError ? <span className="field-error">{sError}</span> : null}
                        </>
                      ) : (
                        "—"
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </Table>
      </div>
      <div className="grid-actions">
        <button
          type="button"
          disabled={priceForm.busy || changedPrices.length === 0}
          onClick={() => savePrices()}
        >
          {priceForm.busy
            ? "Saving…"
            : changedPrices.length > 1
              ? `Save ${changedPrices.length} prices`
              : "Save prices"}
        </button>
        {locations.length ? (
          <>
            <Field label="Reason for the stock change">
              {({ id }) => (
                <select id={id} value={reason} onChange={(e) => setReason(e.target.value as WritableReason)}>
                  {(WRITABLE_INVENTORY_REASONS as readonly WritableReason[]).map((r) => (
                    <option key={r} value={r}>
                      {INVENTORY_REASONS[r as InventoryReason].label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <button
              type="button"
              disabled={stockForm.busy || changedStock.length === 0}
              onClick={() => saveStock()}
            >
              {stockForm.busy ? "Setting…" : "Set stock"}
            </button>
          </>
        ) : null}
      </div>
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/stores/:slug/products/:id", element: <ProductPage /> })];
