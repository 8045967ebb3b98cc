import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import { useStores } from "../api/session.ts";
import type { Product } from "../api/types.ts";
import { ListTools, LoadMore, Table } from "../components/list.tsx";
import {
  Badge,
  Empty,
  Field,
  FormAlert,
  Loading,
  Modal,
  PageHeader,
  Panel,
  TextField,
  useConfirm,
  useFormErrors,
  useNotify,
} from "../components/ui.tsx";
import {
  Money,
  PRODUCT_STATUS_NAMES,
  PRODUCT_STATUSES,
  ProductDescription,
  ProductStatus,
  ProductTitle,
  Sku,
  Stock,
} from "../contract.ts";
import { money } from "../lib/format.ts";
import { searchParam, useDebounced, useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { validate } from "../lib/validate.ts";

const SORTS: Array<[string, string]> = [
  ["-createdAt", "Newest first"],
  ["createdAt", "Oldest first"],
  ["title", "Title, A to Z"],
  ["-title", "Title, Z to A"],
  ["price", "Price, lowest first"],
  ["-price", "Price, highest first"],
  ["stock", "Stock, lowest first"],
  ["-stock", "Stock, highest first"],
];

export function ProductsPage() {
  const slug = useSlug();
  const store = useStores().data?.find((s) => s.slug === slug);
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState("-createdAt");
  const q = searchParam(useDebounced(search));
  const [editing, setEditing] = useState<Product | null>(null);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const list = useCursorList<Product>(["products", slug, q, sort], async (cursor) => {
    const res = await unwrap<Product[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug }, query: { limit: 20, cursor, q, sort: sort as never } },
      }),
    );
    return res;
  });
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
          onSearch={setSearch}
          searchLabel="Search by title or SKU"
          sort={sort}
          onSort={setSort}
          sorts={SORTS}
        />
        {list.isPending ? (
          <Loading what="Loading products" />
        ) : list.items.length === 0 ? (
          <Empty>{q ? `No product matches “${q}”.` : "No products yet. Add your first one below."}</Empty>
        ) : (
          <>
            <Table
              headers={[
                "Product",
                "SKU",
                { label: "Price", num: true },
                { label: "Stock", num: true },
                "Status",
                "Actions",
              ]}
            >
              {list.items.map((p) => (
                <tr key={p.id}>
                  <td data-label="Product" className="strong">
                    {p.title}
                  </td>
                  <td data-label="SKU" className="mono">
                    {p.sku ?? "—"}
                  </td>
                  <td data-label="Price" className="num">
                    {money(p.price, p.currency)}
                  </td>
                  <td data-label="Stock" className="num">
                    {p.stock}
                  </td>
                  <td data-label="Status">
                    <Badge value={p.status} />
                  </td>
                  <td className="cell-actions">
                    <button type="button" className="secondary" onClick={() => setEditing(p)}>
                      Edit
                    </button>
                    <button type="button" className="danger" onClick={() => remove(p)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
            <LoadMore
              shown={list.items.length}
              hasMore={Boolean(list.hasNextPage)}
              loading={list.isFetchingNextPage}
              onMore={() => list.fetchNextPage()}
              noun="products"
            />
          </>
        )}
      </Panel>
      <Panel title="Add a product">
        <ProductForm slug={slug} currency={currency} onSaved={refresh} />
      </Panel>
      {editing ? (
        <Modal title={`Edit ${editing.title}`} onClose={() => setEditing(null)} wide>
          <ProductForm
            slug={slug}
            currency={currency}
            product={editing}
            onSaved={async () => {
              setEditing(null);
              await refresh();
            }}
            onCancel={() => setEditing(null)}
          />
        </Modal>
      ) : null}
    </>
  );
}

/** Create (no `product`) or edit a product, checked with the contract's field rules first. */
function ProductForm(props: {
  slug: string;
  currency: string;
  product?: Product;
  onSaved: () => void | Promise<void>;
  onCancel?: () => void;
}) {
  const p = props.product;
  const [title, setTitle] = useState(p?.title ?? "");
  const [price, setPrice] = useState(p?.price ?? "");
  const [sku, setSku] = useState(p?.sku ?? "");
  const [stock, setStock] = useState(String(p?.stock ?? 0));
  const [status, setStatus] = useState<ProductStatus>(p?.status ?? ProductStatus.active);
  const [description, setDescription] = useState(p?.description ?? "");
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();

  async function submit(e: FormEvent) {
    e.preventDefault();
    errors.clear();
    const stockNumber = Number(stock);
    const invalid = validate([
      ["title", ProductTitle, title.trim()],
      ["price", Money, price.trim()],
      ["stock", Stock, stock.trim() === "" || !Number.isInteger(stockNumber) ? Number.NaN : stockNumber],
      ["description", ProductDescription, description],
      ...(sku.trim() ? ([["sku", Sku, sku.trim()]] as const) : []),
    ]);
    if (invalid.length) return errors.set({ message: "Check the highlighted fields.", fields: invalid });
    const body = {
      title: title.trim(),
      price: price.trim(),
      stock: stockNumber,
      status,
      description,
      sku: sku.trim() ? sku.trim() : null,
    };
    setBusy(true);
    try {
      if (p) {
        await unwrap(
          api.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
            params: { path: { slug: props.slug, id: p.id } },
            body,
          }),
        );
        notify("Changes saved");
      } else {
        await unwrap(
          api.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: props.slug } },
            body,
            headers: { "idempotency-key": key },
          }),
        );
        answered();
        notify(`${body.title} added`);
        setTitle("");
        setPrice("");
        setSku("");
        setStock("0");
        setDescription("");
      }
      await props.onSaved();
    } catch (error) {
      answered(error);
      errors.set(error instanceof ApiError ? error : { message: "Saving failed." });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField label="Title" value={title} onChange={setTitle} error={errors.of("title")} />
      <TextField
        label={`Price (${props.currency})`}
        value={price}
        onChange={setPrice}
        inputMode="decimal"
        placeholder="19.99"
        error={errors.of("price")}
      />
      <TextField
        label="SKU"
        value={sku}
        onChange={setSku}
        hint="Optional; unique in the store."
        error={errors.of("sku")}
      />
      <TextField
        label="Stock"
        value={stock}
        onChange={setStock}
        inputMode="numeric"
        error={errors.of("stock")}
      />
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
      <div className="actions">
        {props.onCancel ? (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving…" : p ? "Save changes" : "Create product"}
        </button>
      </div>
    </form>
  );
}
