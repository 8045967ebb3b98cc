import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { currencyExponent, RATE_SCALE } from "../../lib/money.ts";
import {
  type DiscountRule,
  type MoneyInput,
  type MoneyLine,
  type PricedOrder,
  priceOrder,
  refundShare,
  shippingPaid,
  taxOn,
} from "./order-money.ts";

const line = (
  unitPrice: number,
  quantity: number,
  productId = "p1",
  collectionIds: string[] = [],
): MoneyLine => ({
  unitPrice,
  quantity,
  productId,
  collectionIds,
});
const rule = (r: Partial<DiscountRule>): DiscountRule => ({
  code: "CODE",
  kind: "percentage",
  ratePpm: 0,
  amount: 0,
  allocation: "across",
  productIds: [],
  collectionIds: [],
  ...r,
});
const order = (o: Partial<MoneyInput>): MoneyInput => ({
  lines: [],
  shipping: [],
  discounts: [],
  taxRates: [],
  taxesIncluded: false,
  taxShipping: false,
  taxExempt: false,
  ...o,
});

describe("an order's money", () => {
  it("adds tax per line and rate, rounded half up, after the discounts", () => {
    // 3 × 9.99 and 1 × 0.05 in USD, 10 % off, 8.875 % tax: the worked example of docs/decisions.md.
    const priced = priceOrder(
      order({
        lines: [line(999, 3), line(5, 1, "p2")],
        discounts: [rule({ ratePpm: 100_000 })],
        taxRates: [{ title: "NY", ratePpm: 88_750 }],
      }),
    );
    // 10 % of 30.02 = 3.002 -> 3.00, split in proportion 29.97 : 0.05 (2.99500 : 0.00499): whole
    // shares 2.99 and 0.00, the unit left to the larger remainder (0.500 against 0.499): 3.00 and 0.
    assert.deepEqual(
      priced.lines.map((l) => l.discount),
      [300, 0],
    );
    // Tax: 26.97 × 8.875 % = 2.3936 -> 2.39; 0.05 × 8.875 % = 0.0044 -> 0.00.
    assert.deepEqual(
      priced.lines.map((l) => l.tax),
      [239, 0],
    );
    assert.deepEqual(priced.totals, {
      subtotal: 3002,
      discounts: 300,
      shipping: 0,
      tax: 239,
      taxIncluded: 0,
      total: 2941,
    });
  });

  it("finds the tax inside a price that includes it, and keeps it out of the identity's `tax`", () => {
    const priced = priceOrder(
      order({
        lines: [line(1200, 1)],
        shipping: [{ title: "Standard", code: null, price: 495 }],
        taxRates: [{ title: "VAT", ratePpm: 200_000 }],
        taxesIncluded: true,
        taxShipping: true,
      }),
    );
    assert.equal(priced.lines[0]!.tax, 200); // 12.00 / 1.2 = 10.00
    assert.equal(priced.shipping[0]!.tax, 83); // 4.95 × 0.2 / 1.2 = 0.825 -> 0.83
    assert.deepEqual(priced.taxLines, [{ title: "VAT", ratePpm: 200_000, amount: 283 }]);
    assert.equal(priced.totals.tax, 0);
    assert.equal(priced.totals.taxIncluded, 283);
    assert.equal(priced.totals.total, 1695);
  });

  it("splits included tax over two rates without making a unit", () => {
    const shares = taxOn(
      1000,
      [
        { title: "GST", ratePpm: 50_000 },
        { title: "PST", ratePpm: 70_000 },
      ],
      true,
    );
    // 10.00 × 0.12 / 1.12 = 1.0714 -> 1.07, split 5 : 7 -> 0.45 + 0.62.
    assert.deepEqual(
      shares.map((s) => s.amount),
      [45, 62],
    );
  });

  it("takes a fixed amount across the entitled lines, or off each unit, never below zero", () => {
    const lines = [line(1000, 2, "a", ["summer"]), line(500, 1, "b"), line(300, 1, "c", ["summer"])];
    const across = priceOrder(
      order({ lines, discounts: [rule({ kind: "fixed_amount", amount: 1000, collectionIds: ["summer"] })] }),
    );
    assert.deepEqual(
      across.lines.map((l) => l.discount),
      [870, 0, 130],
    );
    const each = priceOrder(
      order({
        lines,
        discounts: [rule({ kind: "fixed_amount", amount: 400, allocation: "each", productIds: ["a", "c"] })],
      }),
    );
    assert.deepEqual(
      each.lines.map((l) => l.discount),
      [800, 0, 300],
    );
    const more = priceOrder(order({ lines, discounts: [rule({ kind: "fixed_amount", amount: 999_999 })] }));
    assert.equal(more.totals.total, 0);
    assert.equal(more.totals.discounts, 2800);
  });

  it("frees the shipping, and applies a second discount to what the first left", () => {
    const priced = priceOrder(
      order({
        lines: [line(2000, 1)],
        shipping: [{ title: "Express", code: "express", price: 1500 }],
        discounts: [
          rule({ kind: "free_shipping", code: "SHIP" }),
          rule({ ratePpm: 250_000 }),
          rule({ ratePpm: 100_000 }),
        ],
      }),
    );
    assert.equal(priced.shipping[0]!.discount, 1500);
    assert.deepEqual(priced.discountAmounts, [1500, 500, 150]);
    assert.equal(priced.totals.total, 1350);
  });

  it("charges a tax-exempt customer no tax", () => {
    const priced = priceOrder(
      order({ lines: [line(1000, 1)], taxRates: [{ title: "VAT", ratePpm: 200_000 }], taxExempt: true }),
    );
    assert.deepEqual(priced.taxLines, []);
    assert.equal(priced.totals.total, 1000);
  });
});

/** Every rule a priced order keeps (the property test's, after placing and after each edit). */
function check(input: MoneyInput, p: PricedOrder, where: () => string) {
  const t = p.totals;
  assert.equal(t.subtotal - t.discounts + t.shipping + t.tax, t.total, where());
  assert.ok(t.total >= 0 && t.tax >= 0 && t.taxIncluded >= 0, where());
  assert.equal(input.taxesIncluded ? t.tax : t.taxIncluded, 0, where());
  // Every discount's shares sum to what it took, and what all took is the order's discounts.
  const shares = [...p.lines, ...p.shipping].flatMap((x) => x.discountAllocations);
  p.discountAmounts.forEach((amount, d) => {
    const allocated = shares.filter((s) => s.discount === d).reduce((a, s) => a + s.amount, 0);
    assert.equal(allocated, amount, `${where()}: discount ${d}`);
  });
  assert.equal(
    p.discountAmounts.reduce((a, b) => a + b, 0),
    t.discounts,
    where(),
  );
  // No line or shipping line is discounted below zero; the tax by rate sums to the lines' tax.
  for (const l of p.lines) assert.ok(l.discount <= l.subtotal && l.discount >= 0, where());
  for (const s of p.shipping) assert.ok(s.discount <= s.price && s.discount >= 0, where());
  const lineTax = [...p.lines, ...p.shipping].reduce((a, x) => a + x.tax, 0);
  assert.equal(
    p.taxLines.reduce((a, x) => a + x.amount, 0),
    lineTax,
    where(),
  );
  assert.equal(lineTax, t.tax + t.taxIncluded, where());
}

/** A small seeded generator (mulberry32): the same seed, the same orders. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return { next, int, pick: <T>(xs: readonly T[]) => xs[int(0, xs.length - 1)]! };
}

describe("an order's money: 10,000 random orders per currency", () => {
  const SEED = Number(process.env.TEST_SEED) || Math.floor(Math.random() * 2 ** 31);
  for (const currency of ["JPY", "USD", "KWD"]) {
    it(`${currency}: subtotal − discounts + shipping + tax = total, no allocation loses or makes a unit, refunds in steps return the total exactly (seed ${SEED})`, () => {
      const r = random(SEED + currency.charCodeAt(0));
      const unit = 10 ** currencyExponent(currency);
      for (let n = 0; n < 10_000; n++) {
        const where = () => `order ${n} (replay with TEST_SEED=${SEED})`;
        const products = ["a", "b", "c", "d"];
        const lines = Array.from({ length: r.int(1, 6) }, () =>
          line(r.int(0, 500 * unit), r.int(1, 20), r.pick(products), r.next() < 0.5 ? ["col"] : []),
        );
        const shipping = Array.from({ length: r.int(0, 2) }, (_, j) => ({
          title: `S${j}`,
          code: null,
          price: r.int(0, 30 * unit),
        }));
        const discounts = Array.from({ length: r.int(0, 3) }, () => {
          const kind = r.pick(["percentage", "fixed_amount", "free_shipping"] as const);
          return rule({
            kind,
            ratePpm: kind === "percentage" ? r.int(1, RATE_SCALE) : 0,
            amount: kind === "fixed_amount" ? r.int(1, 200 * unit) : 0,
            allocation: r.pick(["across", "each"] as const),
            productIds: r.next() < 0.3 ? [r.pick(products)] : [],
            collectionIds: r.next() < 0.3 ? ["col"] : [],
          });
        });
        const taxRates = Array.from({ length: r.int(0, 2) }, (_, k) => ({
          title: `T${k}`,
          ratePpm: r.int(0, 300_000),
        }));
        const order0 = order({
          lines,
          shipping,
          discounts,
          taxRates,
          taxesIncluded: r.next() < 0.5,
          taxShipping: r.next() < 0.5,
          taxExempt: r.next() < 0.1,
        });
        let input = order0;
        let p = priceOrder(input);
        check(input, p, where);
        // Edits before it ships (part 5): quantities changed, lines removed and added, codes taken
        // off, the shipping replaced; each time the order is priced again and keeps every rule,
        // and the refunds below are of the edited order.
        for (let e = r.int(0, 2); e > 0; e--) {
          const kept = input.lines
            .map((l) => ({ ...l, quantity: r.next() < 0.3 ? r.int(0, 20) : l.quantity }))
            .filter((l) => l.quantity > 0);
          const added = Array.from({ length: r.int(kept.length ? 0 : 1, 2) }, () =>
            line(r.int(0, 500 * unit), r.int(1, 20), r.pick(products), r.next() < 0.5 ? ["col"] : []),
          );
          input = {
            ...input,
            lines: [...kept, ...added],
            discounts: r.next() < 0.3 ? input.discounts.filter(() => r.next() < 0.5) : input.discounts,
            shipping:
              r.next() < 0.3 ? [{ title: "E", code: null, price: r.int(0, 30 * unit) }] : input.shipping,
          };
          p = priceOrder(input);
          check(input, p, () => `${where()}, edit ${e}`);
        }
        const t = p.totals;
        // Partial refunds in random steps, then the rest: never more than paid at any step, and
        // everything refunded comes to exactly the total (net 0).
        let refunded = 0;
        const refundedUnits = p.lines.map(() => 0);
        const lineOf = (i: number) => ({
          quantity: input.lines[i]!.quantity,
          refundedQuantity: refundedUnits[i]!,
          subtotal: p.lines[i]!.subtotal,
          discount: p.lines[i]!.discount,
          tax: p.lines[i]!.tax,
        });
        for (let step = 0; step < r.int(0, 3); step++)
          p.lines.forEach((_, i) => {
            const q = r.int(0, input.lines[i]!.quantity - refundedUnits[i]!);
            if (q === 0) return;
            const share = refundShare(lineOf(i), q, input.taxesIncluded);
            assert.ok(share.amount >= 0 && share.tax >= 0, where());
            refunded += share.amount;
            refundedUnits[i]! += q;
            assert.ok(refunded <= t.total, `${where()}: refunded ${refunded} of ${t.total}`);
          });
        p.lines.forEach((_, i) => {
          const q = input.lines[i]!.quantity - refundedUnits[i]!;
          if (q > 0) refunded += refundShare(lineOf(i), q, input.taxesIncluded).amount;
        });
        refunded += shippingPaid(p.shipping, input.taxesIncluded).amount;
        assert.equal(refunded, t.total, `${where()}: a full refund in steps returns the total exactly`);
        // Included tax is inside what is paid for each line: never more than the line's rest.
        if (input.taxesIncluded)
          for (const l of p.lines) assert.ok(l.tax <= l.subtotal - l.discount, where());
      }
    });
  }
});
