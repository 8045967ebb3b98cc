import type { DiscountApplicationJson, DiscountShareJson, TaxLineJson } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import { toMinorUnits } from "../../lib/money.ts";
import type { DiscountShare, PricedOrder, TaxShare } from "./order-money.ts";

const taxLines = (shares: readonly TaxShare[]): TaxLineJson[] =>
  shares.map((t) => ({ title: t.title, ratePpm: t.ratePpm, amountMinor: t.amount }));
const discountShares = (shares: readonly DiscountShare[]): DiscountShareJson[] =>
  shares.map((d) => ({ application: d.discount, amountMinor: d.amount }));

/**
 * A priced order (`priceOrder`) as the columns it is stored in: each line's money, in the order
 * of the lines priced, and the order's (totals, shipping lines, the discount applications with
 * what each took, tax by rate). Placing an order and editing one write it the same way.
 */
export function moneyColumns(
  priced: PricedOrder,
  applications: ReadonlyArray<Omit<DiscountApplicationJson, "amountMinor">>,
) {
  const { totals } = priced;
  return {
    lines: priced.lines.map((l) => ({
      total_minor: l.subtotal,
      discount_minor: l.discount,
      discount_allocations: discountShares(l.discountAllocations),
      tax_minor: l.tax,
      tax_lines: taxLines(l.taxLines),
    })),
    order: {
      subtotal_minor: totals.subtotal,
      discounts_minor: totals.discounts,
      shipping_minor: totals.shipping,
      tax_minor: totals.tax,
      tax_included_minor: totals.taxIncluded,
      total_minor: totals.total,
      shipping_lines: priced.shipping.map((s) => ({
        title: s.title,
        code: s.code,
        priceMinor: s.price,
        discountMinor: s.discount,
        discountAllocations: discountShares(s.discountAllocations),
        taxMinor: s.tax,
        taxLines: taxLines(s.taxLines),
      })),
      discount_applications: applications.map((a, k) => ({
        ...a,
        amountMinor: priced.discountAmounts[k]!,
      })),
      tax_lines: taxLines(priced.taxLines),
    },
  };
}

/** Shipping lines as a body gives them (prices as decimal strings), in minor units of `currency` (400 when one is not). */
export function shippingLinesIn(
  lines: ReadonlyArray<{ title: string; price: string; code?: string | undefined }>,
  currency: string,
  field = "shippingLines",
) {
  return lines.map((s, i) => {
    const price = toMinorUnits(s.price, currency);
    if (price === null)
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: `${field}.${i}.price`, message: `is not an amount in ${currency}` }],
      });
    return { title: s.title.trim(), code: s.code ?? null, price };
  });
}
