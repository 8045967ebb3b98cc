import {
  DISCOUNT_REFUSALS,
  type DiscountRefusal,
  DiscountStatus,
  EVENT,
  parseDateTime,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Discount, DiscountApplicationJson, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { toMinorUnits, toRate } from "../../lib/money.ts";
import { finishPage, type PageQuery, planPage } from "../../lib/pagination.ts";
import type { CollectionService } from "../collections/collections-service.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import { type DiscountRule, entitles, type MoneyLine } from "../orders/order-money.ts";
import type { DiscountChanges, DiscountRepo, DiscountRow } from "./discounts-repo.ts";
import {
  type CreateDiscountInput,
  DISCOUNT_SORTS,
  toDiscountResource,
  type UpdateDiscountInput,
} from "./discounts-schemas.ts";

type DiscountTopic =
  | typeof EVENT.discountCreated
  | typeof EVENT.discountUpdated
  | typeof EVENT.discountDeleted;

/** What an order asks of its discount codes: its lines (with their products' collections) and shipping. */
export interface OrderForDiscounts {
  orderId: string;
  customerId: string;
  lines: ReadonlyArray<Omit<MoneyLine, "collectionIds">>;
  hasShipping: boolean;
}

/** A code's terms as an order stores them (orders.discount_applications), and whether it combines. */
type AppliedTerms = Omit<DiscountApplicationJson, "amountMinor"> & { combinable: boolean };

function termsOf(d: Discount): AppliedTerms {
  return {
    discountId: d.id,
    code: d.code,
    kind: d.kind,
    ratePpm: d.rate_ppm,
    valueMinor: d.amount_minor,
    allocation: d.allocation,
    productIds: d.product_ids,
    collectionIds: d.collection_ids,
    combinable: d.combinable,
  };
}

/** A refused code: the 400 names each code (`discountCodes.<i>`) and why, from a closed list. */
function refused(refusals: Array<{ index: number; code: string; reason: DiscountRefusal }>) {
  return new AppError("DISCOUNT_NOT_APPLICABLE", {
    message: refusals.map((r) => `${r.code} ${DISCOUNT_REFUSALS[r.reason]}.`).join(" "),
    details: refusals.map((r) => ({
      field: `discountCodes.${r.index}`,
      reason: r.reason,
      message: DISCOUNT_REFUSALS[r.reason],
    })),
  });
}

/**
 * Discount codes (issue 31): the merchant's and apps' CRUD (read_discounts / write_discounts),
 * each change its `discount.*` event; and the codes an order names, checked, reserved against
 * their limits in the order's transaction and turned into the rules `priceOrder` applies.
 */
export function createDiscountService(deps: {
  db: Db;
  repo: DiscountRepo;
  collections: Pick<CollectionService, "membership">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  async function record(tx: Executor, store: Store, d: Discount, topic: DiscountTopic) {
    const view = toDiscountResource(d, store.currency);
    await deps.recordEvent(tx, { storeId: store.id, topic, resourceId: d.id, payload: view });
    return view;
  }

  const invalid = (field: string, message: string) =>
    new AppError("VALIDATION_FAILED", { details: [{ field, message }] });

  /** The row's terms from a create or an update over the current row, every rule checked. */
  async function terms(
    tx: Executor,
    store: Store,
    input: UpdateDiscountInput & Partial<Pick<CreateDiscountInput, "kind">>,
    current: DiscountRow | undefined,
    now: Date,
  ): Promise<Omit<DiscountRow, "store_id" | "id" | "created_at" | "updated_at">> {
    const kind = input.kind ?? current!.kind;
    const rate = input.percentage !== undefined ? toRate(input.percentage) : (current?.rate_ppm ?? null);
    const amount =
      input.value !== undefined ? toMinorUnits(input.value, store.currency) : (current?.amount_minor ?? null);
    if (kind === "percentage") {
      if (input.value !== undefined) throw invalid("value", "is for a fixed_amount discount");
      if (!rate) throw invalid("percentage", "a percentage discount takes more than 0 and at most 100");
    } else if (input.percentage !== undefined) throw invalid("percentage", "is for a percentage discount");
    if (kind === "fixed_amount") {
      if (input.value !== undefined && amount === null)
        throw invalid("value", `is not an amount in ${store.currency}`);
      if (!amount) throw invalid("value", "a fixed_amount discount takes an amount above 0");
    } else if (input.value !== undefined) throw invalid("value", "is for a fixed_amount discount");
    const allocation = input.allocation ?? current?.allocation ?? "across";
    if (allocation === "each" && kind !== "fixed_amount")
      throw invalid("allocation", "each is for a fixed_amount discount");
    const minSubtotal =
      input.minimumSubtotal === undefined
        ? (current?.min_subtotal_minor ?? null)
        : input.minimumSubtotal === null
          ? null
          : toMinorUnits(input.minimumSubtotal, store.currency);
    if (input.minimumSubtotal && minSubtotal === null)
      throw invalid("minimumSubtotal", `is not an amount in ${store.currency}`);
    const startsAt = input.startsAt ? parseDateTime(input.startsAt)! : (current?.starts_at ?? now);
    const endsAt =
      input.endsAt === undefined
        ? (current?.ends_at ?? null)
        : input.endsAt === null
          ? null
          : parseDateTime(input.endsAt)!;
    if (endsAt && endsAt <= startsAt) throw invalid("endsAt", "must be after startsAt");
    const productIds = input.productIds ?? current?.product_ids ?? [];
    const collectionIds = input.collectionIds ?? current?.collection_ids ?? [];
    if (input.productIds?.length) {
      const known = new Set(
        (
          await tx
            .selectFrom("products")
            .select("id")
            .where("store_id", "=", store.id)
            .where("id", "in", input.productIds)
            .execute()
        ).map((r) => r.id),
      );
      const missing = input.productIds.findIndex((id) => !known.has(id));
      if (missing >= 0) throw invalid(`productIds.${missing}`, "is not a product of this store");
    }
    if (input.collectionIds?.length) {
      const known = new Set(
        (
          await tx
            .selectFrom("collections")
            .select("id")
            .where("store_id", "=", store.id)
            .where("id", "in", input.collectionIds)
            .execute()
        ).map((r) => r.id),
      );
      const missing = input.collectionIds.findIndex((id) => !known.has(id));
      if (missing >= 0) throw invalid(`collectionIds.${missing}`, "is not a collection of this store");
    }
    const usageLimit = input.usageLimit === undefined ? (current?.usage_limit ?? null) : input.usageLimit;
    return {
      code: (input.code ?? current!.code).trim(),
      kind,
      rate_ppm: kind === "percentage" ? rate! : 0,
      amount_minor: kind === "fixed_amount" ? amount! : 0,
      allocation: kind === "fixed_amount" ? allocation : "across",
      product_ids: [...productIds],
      collection_ids: [...collectionIds],
      min_subtotal_minor: minSubtotal,
      min_quantity:
        input.minimumQuantity === undefined ? (current?.min_quantity ?? null) : input.minimumQuantity,
      starts_at: startsAt,
      ends_at: endsAt,
      usage_limit: usageLimit,
      once_per_customer: input.oncePerCustomer ?? current?.once_per_customer ?? false,
      combinable: input.combinable ?? current?.combinable ?? false,
      status: input.status ?? current?.status ?? DiscountStatus.active,
    };
  }

  const codeTaken = () =>
    new AppError("CONFLICT", {
      message: "Another discount of this store has this code.",
      details: [{ field: "code", message: "is taken (codes are matched without regard to case)" }],
    });

  return {
    async list(store: Store, query: PageQuery & { status?: DiscountStatus | undefined }) {
      const plan = planPage(query, DISCOUNT_SORTS, { status: query.status });
      const page = finishPage(await repo.list(store.id, plan, { status: query.status }), plan);
      return { items: page.items.map((d) => toDiscountResource(d, store.currency)), meta: page.meta };
    },
    async get(store: Store, id: string) {
      const d = await repo.find(store.id, id);
      if (!d) throw notFound("Discount");
      return toDiscountResource(d, store.currency);
    },
    async create(store: Store, input: CreateDiscountInput) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const row = await repo.insert(
          {
            store_id: store.id,
            id: newId("discount"),
            ...(await terms(tx, store, input, undefined, now)),
            created_at: now,
            updated_at: now,
          },
          tx,
        );
        if (!row) throw codeTaken();
        return record(tx, store, row, EVENT.discountCreated);
      });
    },
    async update(store: Store, id: string, input: UpdateDiscountInput) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.find(store.id, id, tx, true);
        if (!current) throw notFound("Discount");
        if (
          input.usageLimit !== undefined &&
          input.usageLimit !== null &&
          input.usageLimit < current.times_used
        )
          throw new AppError("CONFLICT", {
            message: `This discount was used ${current.times_used} times already.`,
            details: [
              { field: "usageLimit", message: `cannot be below the ${current.times_used} uses so far` },
            ],
          });
        const next = await terms(tx, store, input, current, now);
        if (
          next.code.toLowerCase() !== current.code.toLowerCase() &&
          (await repo.codeTaken(store.id, next.code, id, tx))
        )
          throw codeTaken();
        const changes: DiscountChanges = { updated_at: now };
        for (const [k, v] of Object.entries(next) as Array<[keyof typeof next, unknown]>)
          if (JSON.stringify(v) !== JSON.stringify(current[k])) (changes as Record<string, unknown>)[k] = v;
        if (Object.keys(changes).length === 1) return toDiscountResource(current, store.currency);
        const updated = await repo.update(store.id, id, changes, tx);
        return record(tx, store, updated, EVENT.discountUpdated);
      });
    },
    async remove(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        const current = await repo.find(store.id, id, tx, true);
        if (!current) throw notFound("Discount");
        await repo.remove(store.id, id, tx);
        return record(tx, store, current, EVENT.discountDeleted);
      });
    },

    /**
     * The codes an order names, in its transaction: each known, active, within its dates, on
     * something in the order and over its minimum, combinable when there are several; then one
     * use of each reserved (its limit and the once-per-customer rule checked under the
     * reservation's row lock). Answers the rules `priceOrder` applies, in the order named, the
     * applications to store with the order, and the collections each line's product is in (for
     * the entitlement). Any refusal is one 400 naming every refused code and why; nothing is
     * reserved then.
     *
     * `kept`: the applications an order being edited has already. A code among them keeps the
     * terms it had when the order was placed and the use it reserved then: its status, dates,
     * limit and minimum are not asked again (the customer was promised it), only that it still
     * applies to something (`not_applicable` otherwise: remove it).
     */
    async applyToOrder(
      tx: Executor,
      store: Store,
      codes: readonly string[],
      order: OrderForDiscounts,
      now: Date,
      kept: readonly DiscountApplicationJson[] = [],
    ) {
      const keptByCode = new Map(kept.map((a) => [a.code.toLowerCase(), a]));
      const found = codes.length ? await repo.byCodes(store.id, codes, tx) : [];
      const byCode = new Map(found.map((d) => [d.code.toLowerCase(), d]));
      const refusals: Array<{ index: number; code: string; reason: DiscountRefusal }> = [];
      const seen = new Set<string>();
      const applied: Array<{ index: number; terms: AppliedTerms; row: Discount | undefined }> = [];
      for (const [index, code] of codes.entries()) {
        const key = code.toLowerCase();
        const d = byCode.get(key);
        const held = keptByCode.get(key);
        const refuse = (reason: DiscountRefusal) => refusals.push({ index, code, reason });
        if (seen.has(key)) refuse("not_combinable");
        else if (held) applied.push({ index, terms: { ...held, combinable: d?.combinable ?? true }, row: d });
        else if (!d) refuse("unknown");
        else if (d.status === DiscountStatus.paused) refuse("paused");
        else if (d.starts_at > now) refuse("not_yet_active");
        else if (d.ends_at && d.ends_at <= now) refuse("expired");
        else applied.push({ index, terms: termsOf(d), row: d });
        seen.add(key);
      }
      if (codes.length > 1)
        for (const a of applied)
          if (!a.terms.combinable)
            refusals.push({ index: a.index, code: a.terms.code, reason: "not_combinable" });
      const collectionIds = [...new Set(applied.flatMap((a) => a.terms.collectionIds))];
      const membership = collectionIds.length
        ? await deps.collections.membership(
            tx,
            store,
            collectionIds,
            order.lines.flatMap((l) => (l.productId ? [l.productId] : [])),
          )
        : new Map<string, string[]>();
      const lines = order.lines.map((l) => ({
        ...l,
        collectionIds: (l.productId && membership.get(l.productId)) || [],
      }));
      const rules = applied.map(
        ({ terms }): DiscountRule => ({
          code: terms.code,
          kind: terms.kind,
          ratePpm: terms.ratePpm,
          amount: terms.valueMinor,
          allocation: terms.allocation,
          productIds: terms.productIds,
          collectionIds: terms.collectionIds,
        }),
      );
      for (const [k, a] of applied.entries()) {
        const entitled = lines.filter((l) => entitles(rules[k]!, l));
        if (a.terms.kind === "free_shipping" ? !order.hasShipping : entitled.length === 0) {
          refusals.push({ index: a.index, code: a.terms.code, reason: "not_applicable" });
          continue;
        }
        const d = a.row;
        if (!d || keptByCode.has(a.terms.code.toLowerCase())) continue;
        const subtotal = entitled.reduce((sum, l) => sum + l.unitPrice * l.quantity, 0);
        const quantity = entitled.reduce((sum, l) => sum + l.quantity, 0);
        if (
          (d.min_subtotal_minor !== null && subtotal < d.min_subtotal_minor) ||
          (d.min_quantity !== null && quantity < d.min_quantity)
        )
          refusals.push({ index: a.index, code: d.code, reason: "minimum_not_met" });
      }
      if (refusals.length) throw refused(dedupe(refusals));
      const reserved: Discount[] = [];
      for (const a of applied) {
        const d = a.row;
        if (!d || keptByCode.has(d.code.toLowerCase())) continue;
        if (!(await repo.reserve(store.id, d.id, tx)))
          refusals.push({ index: a.index, code: d.code, reason: "usage_limit_reached" });
        else if (d.once_per_customer && (await repo.usedBy(store.id, d.id, order.customerId, tx)))
          refusals.push({ index: a.index, code: d.code, reason: "already_used" });
        else reserved.push(d);
      }
      if (refusals.length) throw refused(refusals);
      const applications = applied.map(({ terms: { combinable: _, ...terms } }) => terms);
      return { rules, applications, reserved, lines };
    },
    /** Records the uses `applyToOrder` reserved, once the order's row is written (they name it). */
    async recordUses(
      tx: Executor,
      store: Store,
      reserved: readonly Discount[],
      order: Pick<OrderForDiscounts, "orderId" | "customerId">,
      now: Date,
    ) {
      for (const d of reserved)
        await repo.recordUse(
          {
            store_id: store.id,
            discount_id: d.id,
            order_id: order.orderId,
            customer_id: order.customerId,
            used_at: now,
          },
          tx,
        );
    },
    /** Gives back the uses an order made of codes an edit took off it (a deleted code has none to give). */
    async releaseUses(tx: Executor, store: Store, discountIds: readonly string[], orderId: string) {
      for (const id of discountIds) await repo.releaseUse(store.id, id, orderId, tx);
    },
  };
}
export type DiscountService = ReturnType<typeof createDiscountService>;

/** One refusal per code (the first reason found). */
function dedupe<T extends { index: number }>(refusals: T[]): T[] {
  const seen = new Set<number>();
  return refusals.filter((r) => !seen.has(r.index) && seen.add(r.index)).sort((a, b) => a.index - b.index);
}
