import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Type from "typebox";
import { createRenderer, upgradeRequest } from "./render.ts";
import { defineVersionChange } from "./version-change.ts";

const Product = Type.Object({ id: Type.String(), title: Type.String() }, { title: "Product" });
const Order = Type.Object(
  { id: Type.String(), lines: Type.Array(Type.Object({ product: Type.Union([Product, Type.Null()]) })) },
  { title: "Order" },
);
const Page = Type.Object({ success: Type.Literal(true), data: Type.Array(Product) });
const rename = defineVersionChange({
  version: "2027-03-01",
  description: "Products: `name` is now `title`.",
  resources: { Product: ({ title, ...rest }) => ({ ...rest, name: title }) },
  requests: { adminCreateProduct: ({ name, ...rest }) => ({ ...rest, title: name }) },
});
const tag = defineVersionChange({
  version: "2027-09-01",
  description: "Orders carry `v2`.",
  resources: { Order: ({ v2: _v2, ...rest }) => rest },
});

describe("rendering an older version", () => {
  const r = createRenderer();
  it("transforms every record the change names, wherever it is: a page, a nested union, not others", () => {
    assert.deepEqual(r.render(Page, { success: true, data: [{ id: "a", title: "Mug" }] }, [rename]), {
      success: true,
      data: [{ id: "a", name: "Mug" }],
    });
    const order = { id: "o", v2: true, lines: [{ product: { id: "a", title: "Mug" } }, { product: null }] };
    assert.deepEqual(r.render(Order, order, [tag, rename]), {
      id: "o",
      lines: [{ product: { id: "a", name: "Mug" } }, { product: null }],
    });
    // The current version: the value itself, untouched.
    assert.equal(r.render(Order, order, []), order);
    // A schema no change touches: untouched too.
    const other = Type.Object({ id: Type.String() }, { title: "Customer" });
    const value = { id: "c" };
    assert.equal(r.render(other, value, [rename]), value);
  });

  it("tells the alternatives of a union apart by their fixed values: only a product's item is a product", () => {
    const Customer = Type.Object({ id: Type.String(), title: Type.String() }, { title: "Customer" });
    const Item = Type.Union([
      Type.Object({ type: Type.Literal("product"), data: Product }),
      Type.Object({ type: Type.Unsafe({ type: "string", enum: ["customer.created"] }), data: Customer }),
    ]);
    const Feed = Type.Object({ data: Type.Array(Item) });
    const feed = {
      data: [
        { type: "customer.created", data: { id: "c", title: "Ms" } },
        { type: "product", data: { id: "a", title: "Mug" } },
      ],
    };
    assert.deepEqual(r.render(Feed, feed, [rename]), {
      data: [
        { type: "customer.created", data: { id: "c", title: "Ms" } },
        { type: "product", data: { id: "a", name: "Mug" } },
      ],
    });
  });

  it("brings a request body up, oldest change first", () => {
    assert.deepEqual(upgradeRequest("adminCreateProduct", { name: "Mug", price: "1" }, [tag, rename]), {
      price: "1",
      title: "Mug",
    });
    assert.deepEqual(upgradeRequest("adminUpdateOrder", { note: "x" }, [tag, rename]), { note: "x" });
  });
});
