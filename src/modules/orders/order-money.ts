import type { DiscountAllocation, DiscountKind } from "../../contracts/index.ts";
import { allocate, mulDiv, RATE_SCALE } from "../../lib/money.ts";

/**
 * An order's money (issue 31), computed in one place and pure: its lines, the discounts applied in
 * order, its shipping lines and tax, all in integer minor units of the order's currency. Rounding
 * is `mulDiv`'s (half up, once per line and rate), an order-level amount is spread over lines by
 * `allocate` (largest remainder), so that on every order
 *
 *   subtotal − discounts + shipping + tax = total
 *
 * holds exactly, where `tax` is the tax added on top of the prices; tax already inside the prices
 * (a store whose prices include tax) is `taxIncluded`, part of the subtotal. docs/decisions.md
 * ("The money of an order") has the rules and why.
 */

export interface MoneyLine {
  unitPrice: number;
  quantity: number;
  productId: string | null;
  /** The collections the line's product is in (manual and automatic), for a discount's entitlement. */
  collectionIds: readonly string[];
}

export interface MoneyShipping {
  title: string;
  code: string | null;
  price: number;
}

/** A discount as it applies: what it takes and from which lines. */
export interface DiscountRule {
  code: string;
  kind: DiscountKind;
  /** A percentage's rate, parts per million (0 otherwise). */
  ratePpm: number;
  /** A fixed amount's value, minor units (0 otherwise). */
  amount: number;
  allocation: DiscountAllocation;
  /** The products and collections it applies to; both empty: every line. */
  productIds: readonly string[];
  collectionIds: readonly string[];
}

export interface TaxRateRule {
  title: string;
  ratePpm: number;
}

export interface MoneyInput {
  lines: readonly MoneyLine[];
  shipping: readonly MoneyShipping[];
  discounts: readonly DiscountRule[];
  /** The rates of the place the order ships to (or the store's, when it ships nowhere), in order. */
  taxRates: readonly TaxRateRule[];
  /** The store's prices include tax. */
  taxesIncluded: boolean;
  /** Shipping is taxed at the same rates. */
  taxShipping: boolean;
  /** The customer pays no tax. */
  taxExempt: boolean;
}

/** A share of one discount (its index in `discounts`) taken from a line or a shipping line. */
export interface DiscountShare {
  discount: number;
  amount: number;
}
export interface TaxShare {
  title: string;
  ratePpm: number;
  amount: number;
}

export interface PricedLine {
  subtotal: number;
  discountAllocations: DiscountShare[];
  discount: number;
  taxLines: TaxShare[];
  tax: number;
}
export interface PricedShipping extends MoneyShipping {
  discountAllocations: DiscountShare[];
  discount: number;
  taxLines: TaxShare[];
  tax: number;
}

export interface OrderTotals {
  subtotal: number;
  discounts: number;
  shipping: number;
  /** Tax added on top of the prices (0 when they include it). */
  tax: number;
  /** Tax inside the prices (0 when it is added). */
  taxIncluded: number;
  total: number;
}

export interface PricedOrder {
  lines: PricedLine[];
  shipping: PricedShipping[];
  /** What each discount took in all, in the order applied. */
  discountAmounts: number[];
  /** The order's tax by rate (title and rate), in the order the rates came. */
  taxLines: TaxShare[];
  totals: OrderTotals;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Whether `rule` applies to `line` (its product, or a collection the product is in). */
export function entitles(rule: Pick<DiscountRule, "productIds" | "collectionIds">, line: MoneyLine): boolean {
  if (rule.productIds.length === 0 && rule.collectionIds.length === 0) return true;
  if (line.productId && rule.productIds.includes(line.productId)) return true;
  return line.collectionIds.some((c) => rule.collectionIds.includes(c));
}

/**
 * Tax on `base` (what is left of a line after its discounts) at `rates`: added, each rate rounded
 * on its own; or included, the whole rounded once (base × Σrates / (1 + Σrates)) and split over
 * the rates in proportion, so the included tax never exceeds what one rounding gives.
 */
export function taxOn(base: number, rates: readonly TaxRateRule[], included: boolean): TaxShare[] {
  if (rates.length === 0) return [];
  if (!included)
    return rates.map((r) => ({
      title: r.title,
      ratePpm: r.ratePpm,
      amount: mulDiv(base, r.ratePpm, RATE_SCALE),
    }));
  const totalPpm = sum(rates.map((r) => r.ratePpm));
  const whole = totalPpm === 0 ? 0 : mulDiv(base, totalPpm, RATE_SCALE + totalPpm);
  const shares = allocate(
    whole,
    rates.map((r) => r.ratePpm),
  );
  return rates.map((r, i) => ({ title: r.title, ratePpm: r.ratePpm, amount: shares[i]! }));
}

/** Prices an order: discounts in the order given, each on what the ones before it left; then tax. */
export function priceOrder(input: MoneyInput): PricedOrder {
  const left = input.lines.map((l) => l.unitPrice * l.quantity);
  const shipLeft = input.shipping.map((s) => s.price);
  const lineShares: DiscountShare[][] = input.lines.map(() => []);
  const shipShares: DiscountShare[][] = input.shipping.map(() => []);
  const discountAmounts = input.discounts.map((rule, d) => {
    const take = (shares: DiscountShare[][], rest: number[], i: number, amount: number) => {
      if (amount <= 0) return 0;
      shares[i]!.push({ discount: d, amount });
      rest[i]! -= amount;
      return amount;
    };
    if (rule.kind === "free_shipping")
      return sum(shipLeft.map((rest, j) => take(shipShares, shipLeft, j, rest)));
    const entitled = input.lines.flatMap((line, i) => (entitles(rule, line) ? [i] : []));
    if (rule.kind === "fixed_amount" && rule.allocation === "each")
      return sum(
        entitled.map((i) =>
          take(lineShares, left, i, Math.min(rule.amount * input.lines[i]!.quantity, left[i]!)),
        ),
      );
    const base = sum(entitled.map((i) => left[i]!));
    const amount =
      rule.kind === "percentage" ? mulDiv(base, rule.ratePpm, RATE_SCALE) : Math.min(rule.amount, base);
    if (amount === 0) return 0;
    const shares = allocate(
      amount,
      entitled.map((i) => left[i]!),
    );
    return sum(entitled.map((i, k) => take(lineShares, left, i, shares[k]!)));
  });

  const rates = input.taxExempt ? [] : input.taxRates;
  const lines: PricedLine[] = input.lines.map((l, i) => {
    const taxLines = taxOn(left[i]!, rates, input.taxesIncluded);
    const discount = sum(lineShares[i]!.map((s) => s.amount));
    return {
      subtotal: l.unitPrice * l.quantity,
      discountAllocations: lineShares[i]!,
      discount,
      taxLines,
      tax: sum(taxLines.map((t) => t.amount)),
    };
  });
  const shipping: PricedShipping[] = input.shipping.map((s, j) => {
    const taxLines = input.taxShipping ? taxOn(shipLeft[j]!, rates, input.taxesIncluded) : [];
    return {
      ...s,
      discountAllocations: shipShares[j]!,
      discount: sum(shipShares[j]!.map((x) => x.amount)),
      taxLines,
      tax: sum(taxLines.map((t) => t.amount)),
    };
  });

  const byRate = new Map<string, TaxShare>();
  for (const t of [...lines, ...shipping].flatMap((x) => x.taxLines)) {
    const key = `${t.title}\u0000${t.ratePpm}`;
    const seen = byRate.get(key);
    if (seen) seen.amount += t.amount;
    else byRate.set(key, { ...t });
  }
  const taxLines = rates.flatMap((r) => {
    const t = byRate.get(`${r.title}\u0000${r.ratePpm}`);
    return t ? [t] : [];
  });

  const subtotal = sum(lines.map((l) => l.subtotal));
  const discounts = sum(lines.map((l) => l.discount)) + sum(shipping.map((s) => s.discount));
  const shippingTotal = sum(shipping.map((s) => s.price));
  const allTax = sum(lines.map((l) => l.tax)) + sum(shipping.map((s) => s.tax));
  const tax = input.taxesIncluded ? 0 : allTax;
  return {
    lines,
    shipping,
    discountAmounts,
    taxLines,
    totals: {
      subtotal,
      discounts,
      shipping: shippingTotal,
      tax,
      taxIncluded: input.taxesIncluded ? allTax : 0,
      total: subtotal - discounts + shippingTotal + tax,
    },
  };
}

/** A line as a refund reads it: what was paid for all its units, and how many are refunded already. */
export interface RefundableLine {
  quantity: number;
  refundedQuantity: number;
  subtotal: number;
  discount: number;
  tax: number;
}

export interface RefundShare {
  subtotal: number;
  discount: number;
  tax: number;
  /** What goes back: subtotal − discount, + tax when it was added on top. */
  amount: number;
}

/**
 * The refund of `quantity` more units of a line, `refundedQuantity` refunded before: each amount
 * the line paid (subtotal, discount, tax) prorated by units through `mulDiv`, as the difference of
 * what the refunded units cumulatively come to. Refunding a line in any number of steps returns
 * exactly what it paid, never a unit more or less.
 */
export function refundShare(line: RefundableLine, quantity: number, taxesIncluded: boolean): RefundShare {
  const upTo = (amount: number, units: number) => mulDiv(amount, units, line.quantity);
  const share = (amount: number) =>
    upTo(amount, line.refundedQuantity + quantity) - upTo(amount, line.refundedQuantity);
  const subtotal = share(line.subtotal);
  const discount = share(line.discount);
  const tax = share(line.tax);
  return { subtotal, discount, tax, amount: subtotal - discount + (taxesIncluded ? 0 : tax) };
}

/** What the order's shipping lines took in all (their tax when it was added), for a shipping refund. */
export function shippingPaid(
  lines: ReadonlyArray<{ price: number; discount: number; tax: number }>,
  taxesIncluded: boolean,
): { amount: number; tax: number } {
  const tax = lines.reduce((a, s) => a + s.tax, 0);
  const amount = lines.reduce((a, s) => a + s.price - s.discount, 0) + (taxesIncluded ? 0 : tax);
  return { amount, tax };
}
