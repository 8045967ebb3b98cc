import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client.ts";
import type { Product } from "../api/types.ts";
import { ProductStatus } from "../contract.ts";
import { money } from "../lib/format.ts";
import { searchParam, useDebounced } from "../lib/hooks.ts";
import { Empty, Field, Loading } from "./ui.tsx";

export type Variant = Product["variants"][number];

/** One thing to sell: a variant, named "Product — Variant" when its product has several. */
export interface Choice {
  product: Product;
  variant: Variant;
  name: string;
}

/** Every variant of the products found, each a choice of its own. */
function choicesOf(products: Product[]): Choice[] {
  return products.flatMap((product) =>
    product.variants.map((variant) => ({
      product,
      variant,
      name: product.variants.length > 1 ? `${product.title} — ${variant.title}` : product.title,
    })),
  );
}

/** What can still be sold of a variant: its stock when tracked, any quantity when not. */
export const limitOf = (v: Variant) => (v.tracked ? v.available : Number.POSITIVE_INFINITY);
export const stockText = (v: Variant) => (v.tracked ? `${v.available} available` : "not tracked");

/**
 * Finds active products by title or SKU and offers each variant to add (a new order's lines, an
 * order edit's added lines); a variant already added, sold out, or a full order cannot be.
 */
export function ProductPicker({
  slug,
  isAdded,
  full,
  onAdd,
}: {
  slug: string;
  isAdded: (variantId: string) => boolean;
  full: boolean;
  onAdd: (choice: Choice) => void;
}) {
  const [productQuery, setProductQuery] = useState("");
  const pq = useDebounced(productQuery.trim());
  const products = useQuery({
    queryKey: ["products", slug, "picker", pq],
    queryFn: async () =>
      (
        await unwrap<Product[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/products", {
            params: {
              path: { slug },
              query: { limit: 8, status: ProductStatus.active, q: searchParam(pq) },
            },
          }),
        )
      ).data,
  });
  return (
    <>
      <Field label="Find a product" hint="Title or SKU, 3 characters or more; the newest are shown first.">
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
      {products.isPending ? (
        <Loading />
      ) : products.data?.length ? (
        <ul className="pick-list" aria-label="Products found">
          {choicesOf(products.data).map((c) => {
            const added = isAdded(c.variant.id);
            const soldOut = limitOf(c.variant) <= 0;
            return (
              <li key={c.variant.id}>
                <span>
                  {/* <bdi>: an override in the title stays off the price after it. */}
                  <bdi className="strong">{c.name}</bdi>{" "}
                  <span className="muted small">
                    {money(c.variant.price, c.product.currency)} · {stockText(c.variant)}
                  </span>
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={added || soldOut || full}
                  onClick={() => onAdd(c)}
                >
                  {added ? "Added" : soldOut ? "Sold out" : "Add"}
                  <span className="visually-hidden"> {c.name}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <Empty>
          {pq ? (
            "No active product matches."
          ) : (
            <>
              No active products yet. <Link to={`/stores/${slug}/products`}>Add a product</Link>
            </>
          )}
        </Empty>
      )}
    </>
  );
}
