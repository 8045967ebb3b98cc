import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useCursorList, useStoreCount } from "../api/lists.ts";
import { useStores } from "../api/session.ts";
import type { Product, ProductSort, SortLabels } from "../api/types.ts";
import { CursorTable, ListTools } from "../components/list.tsx";
import { ProductPicture } from "../components/product-images.tsx";
import {
  Badge,
  Field,
  FormActions,
  FormAlert,
  PageHeader,
  Panel,
  TextField,
  useConfirm,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import {
  Money,
  PAGE_SIZE,
  PRODUCT_STATUS_NAMES,
  PRODUCT_STATUSES,
  ProductDescription,
  ProductStatus,
  ProductTitle,
  Scope,
  Sku,
  Stock,
} from "../contract.ts";
import { money } from "../lib/format.ts";
import { searchParam, useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { useListState } from "../lib/list-state.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

const SORTS: SortLabels<ProductSort> = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  "-updatedAt": "Recently changed first",
  updatedAt: "Least recently changed first",
  title: "Title, A to Z",
  "-title": "Title, Z to A",
  price: "Price, lowest first",
  "-price": "Price, highest first",
  stock: "Stock, lowest first",
  "-stock": "Stock, highest first",
};

export function ProductsPage() {
  const slug = useSlug();
  const store = useStores().data?.find((s) => s.slug === slug);
  const state = useListState({ sorts: SORTS, defaultSort: "-createdAt" });
  const { search, setSearch, sort, setSort } = state;
  const q = searchParam(state.q);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const total = useStoreCount(slug, "products", !q);
  const list = useCursorList<Product>(
    ["products", slug, q, sort],
    (cursor) =>
      unwrap<Product[], { nextCursor: string | null }>(
        api.GET("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor, q, sort } },
        }),
      ),
    { pages: state.pages, onPages: state.setPages },
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["products", slug] });

  async function remove(p: Product) {
    const ok = await confirm({
      title: `Delete ${p.title}?`,
      message: "Orders keep their copy of it. Apps subscribed to product.deleted hear of it.",
      confirmLabel: "Delete product",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", { params: { path: { slug, id: p.id } } }),
      );
      notify(`${p.title} deleted`);
      await refresh();
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Deleting failed.", "error");
    }
  }

  const currency = store?.currency ?? "";
  return (
    <>
      <PageHeader
        title="Products"
        subtitle="Your catalogue: what customers can order, at what price, and how many are in stock."
      />
      <Panel label="Product list">
        <ListTools
          search={search}
          applied={q !== undefined}
          onSearch={setSearch}
          searchLabel="Search by title or SKU"
          sort={sort}
          onSort={setSort}
          sorts={SORTS}
        />
        <CursorTable
          list={list}
          total={total}
          filtered={!!q}
          noun="products"
          empty={q ? `No product matches “${q}”.` : "No products yet. Add your first one below."}
          headers={[
            "Product",
            "SKU",
            { label: "Price", num: true },
            { label: "Available", num: true },
            "Status",
            "Actions",
          ]}
        >
          {(p) => (
            <tr key={p.id}>
              <td data-label="Product" className="strong user-text">
                <span className="product-cell">
                  <span className="thumb" aria-hidden={p.images[0] ? undefined : true}>
                    {p.images[0] ? (
                      // Decorative beside the title, which the link reads out.
                      <ProductPicture image={p.images[0]} sizes="48px" decorative />
                    ) : null}
                  </span>
                  <Link to={`/stores/${slug}/products/${p.id}`}>{p.title}</Link>
                </span>
              </td>
              <td data-label="SKU" className="user-text">
                <span className="mono">{p.variants[0]?.sku ?? "—"}</span>
                {p.variants.length > 1 ? (
                  <span className="muted small"> · {p.variants.length} variants</span>
                ) : null}
              </td>
              <td data-label="Price" className="num">
                {priceRange(p)}
              </td>
              <td data-label="Available" className="num">
                {p.totalAvailable}
              </td>
              <td data-label="Status">
                <Badge value={p.status} label={PRODUCT_STATUSES[p.status].label} />
              </td>
              <td className="cell-actions">
                <Link className="button-link" to={`/stores/${slug}/products/${p.id}`}>
                  Edit<span className="visually-hidden"> {p.title}</span>
                </Link>
                <button type="button" className="danger" onClick={() => remove(p)}>
                  Delete
                </button>
              </td>
            </tr>
          )}
        </CursorTable>
      </Panel>
      <Panel title="Add a product">
        <ProductForm slug={slug} currency={currency} onSaved={refresh} />
      </Panel>
    </>
  );
}

/** "19.00 USD", or "19.00–25.00 USD" when the variants' prices differ. */
export function priceRange(p: Pick<Product, "priceRange" | "currency">): string {
  const { min, max } = p.priceRange;
  return min === max ? money(min, p.currency) : `${min}–${money(max, p.currency)}`;
}

/**
 * Create (no `product`) or edit a product, checked with the contract's field rules first. A new
 * product has one variant (its price, SKU and opening stock); options and more variants are made
 * on the product's page. Editing a one-variant product changes that variant's price and SKU; stock
 * changes through the inventory operations (the product's page).
 */
export function ProductForm(props: {
  slug: string;
  currency: string;
  product?: Product;
  onSaved: () => void | Promise<void>;
  onCancel?: () => void;
}) {
  const p = props.product;
  const variant = p && p.variants.length === 1 ? p.variants[0] : undefined;
  // A product with several variants keeps their prices and SKUs on its own page.
  const single = !p || variant !== undefined;
  const [title, setTitle] = useState(p?.title ?? "");
  const [price, setPrice] = useState(variant?.price ?? "");
  const [sku, setSku] = useState(variant?.sku ?? "");
  const [stock, setStock] = useState("0");
  const [status, setStatus] = useState<ProductStatus>(p?.status ?? ProductStatus.active);
  const [description, setDescription] = useState(p?.description ?? "");
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({
    failure: "Saving failed.",
    answered: p ? undefined : answered,
  });
  /** A field's error, the form's or the server's (which names the variant's fields `variants.0.…`). */
  const errorOf = (field: string) => errors.of(field) ?? errors.of(`variants.0.${field}`);
  const stockNumber = Number(stock);
  const fields = { title: title.trim(), status, description };
  const skuValue = sku.trim() ? sku.trim() : null;
  const submit = handle(
    () =>
      validate([
        ["title", ProductTitle, fields.title],
        ...(single ? ([["price", Money, price.trim()]] as const) : []),
        ...(p
          ? []
          : ([
              [
                "stock",
                Stock,
                stock.trim() === "" || !Number.isInteger(stockNumber) ? Number.NaN : stockNumber,
              ],
            ] as const)),
        ["description", ProductDescription, description],
        ...(single && skuValue ? ([["sku", Sku, skuValue]] as const) : []),
      ]),
    async () => {
      if (p) {
        await unwrap(
          api.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
            params: { path: { slug: props.slug, id: p.id } },
            body: {
              ...fields,
              ...(variant ? { variants: [{ id: variant.id, price: price.trim(), sku: skuValue }] } : {}),
            },
          }),
        );
        notify("Changes saved");
      } else {
        await unwrap(
          api.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: props.slug } },
            body: {
              ...fields,
              variants: [{ price: price.trim(), sku: skuValue, inventoryQuantity: stockNumber }],
            },
            headers: { "idempotency-key": key },
          }),
        );
        notify(`${fields.title} added`);
        setTitle("");
        setPrice("");
        setSku("");
        setStock("0");
        setDescription("");
      }
      await props.onSaved();
    },
  );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField label="Title" value={title} onChange={setTitle} error={errors.of("title")} />
      {single ? (
        <>
          <TextField
            label={`Price (${props.currency})`}
            value={price}
            onChange={setPrice}
            inputMode="decimal"
            placeholder="19.99"
            error={errorOf("price")}
          />
          <TextField
            label="SKU"
            value={sku}
            onChange={setSku}
            hint="Optional; unique in the store."
            error={errorOf("sku")}
          />
        </>
      ) : (
        <p className="muted wide">
          {p?.variants.length} variants: their prices and SKUs are under Variants, below.
        </p>
      )}
      {p ? null : (
        <TextField
          label="Stock"
          value={stock}
          onChange={setStock}
          inputMode="numeric"
          hint="Available at your first location."
          error={errorOf("inventoryQuantity") ?? errors.of("stock")}
        />
      )}
      <Field label="Status" error={errors.of("status")}>
        {({ id, describedBy }) => (
          <select
            id={id}
            aria-describedby={describedBy}
            value={status}
            onChange={(e) => setStatus(e.target.value as ProductStatus)}
          >
            {PRODUCT_STATUS_NAMES.map((s) => (
              <option key={s} value={s}>
                {PRODUCT_STATUSES[s].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Description" error={errors.of("description")} className="wide">
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
          />
        )}
      </Field>
      <FormActions busy={busy} label={p ? "Save changes" : "Create product"} onCancel={props.onCancel} />
    </form>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/products",
    element: <ProductsPage />,
    storeMenu: { label: "Products", order: 30, scope: Scope.read_products },
  }),
];
