import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { AddressJson, Store } from "../../db/schema.ts";
import { MAX_MINOR_UNITS } from "../../lib/money.ts";

/** What a settings change may set on the row (the service has checked every value). */
export interface StoreSettingsChange {
  name?: string;
  contact_email?: string | null;
  address?: AddressJson | null;
  currency?: string;
  time_zone?: string;
  order_number_prefix?: string;
  taxes_included?: boolean;
  tax_shipping?: boolean;
}

export function createStoreRepo(db: Executor) {
  return {
    async insert(
      row: {
        id: string;
        slug: string;
        name: string;
        currency: string;
        owner_account_id: string;
        created_at: Date;
      },
      tx: Executor = db,
    ) {
      return tx
        .insertInto("stores")
        .values({ ...row, updated_at: row.created_at })
        .onConflict((oc) => oc.column("slug").doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    /**
     * The stores the account works in, oldest first: those it owns and those it is staff of, each
     * with the member's role (null where it owns the store).
     */
    async listForAccount(accountId: string, tx: Executor = db) {
      return tx
        .selectFrom("stores")
        .leftJoin("store_members as m", (join) =>
          join.onRef("m.store_id", "=", "stores.id").on("m.account_id", "=", accountId),
        )
        .selectAll("stores")
        .select("m.role as member_role")
        .where((eb) =>
          eb.or([eb("stores.owner_account_id", "=", accountId), eb("m.account_id", "is not", null)]),
        )
        .orderBy("stores.created_at")
        .orderBy("stores.id")
        .limit(1000)
        .execute();
    },
    /** The store with this slug and the account's role in it as a member (null: not a member). */
    async findBySlugForAccount(slug: string, accountId: string, tx: Executor = db) {
      return tx
        .selectFrom("stores")
        .leftJoin("store_members as m", (join) =>
          join.onRef("m.store_id", "=", "stores.id").on("m.account_id", "=", accountId),
        )
        .selectAll("stores")
        .select("m.role as member_role")
        .where("stores.slug", "=", slug)
        .executeTakeFirst();
    },
    async findBySlug(slug: string, tx: Executor = db) {
      return tx.selectFrom("stores").selectAll().where("slug", "=", slug).executeTakeFirst();
    },
    async findById(id: string, tx: Executor = db) {
      return tx.selectFrom("stores").selectAll().where("id", "=", id).executeTakeFirst();
    },
    /**
     * Takes the store's next order number; the row lock lives until the caller's transaction ends.
     * Answers the currency, order number prefix, tax settings and address from the same locked
     * row: a settings change (which locks the row first, storeForSettings) is either wholly before
     * this order or after it.
     */
    async takeOrderNumber(storeId: string, tx: Executor) {
      const row = await tx
        .updateTable("stores")
        .set((eb) => ({ next_order_number: eb("next_order_number", "+", 1) }))
        .where("id", "=", storeId)
        .returning([
          "next_order_number",
          "currency",
          "order_number_prefix",
          "taxes_included",
          "tax_shipping",
          "address",
        ])
        .executeTakeFirstOrThrow();
      return {
        number: row.next_order_number - 1,
        currency: row.currency,
        prefix: row.order_number_prefix,
        taxesIncluded: row.taxes_included,
        taxShipping: row.tax_shipping,
        address: row.address,
      };
    },
    /** How the store taxes an order, as it is now (an edit prices the order again with it). */
    async taxSettings(storeId: string, tx: Executor) {
      const row = await tx
        .selectFrom("stores")
        .select(["tax_shipping", "address"])
        .where("id", "=", storeId)
        .executeTakeFirstOrThrow();
      return { taxShipping: row.tax_shipping, address: row.address };
    },
    /**
     * The store's currency for a write that turns a price into minor units, held until the
     * transaction ends (FOR KEY SHARE: orders taking numbers are not blocked, a currency change is).
     */
    async currencyForWrite(storeId: string, tx: Executor): Promise<string> {
      const row = await tx
        .selectFrom("stores")
        .select("currency")
        .where("id", "=", storeId)
        .forKeyShare()
        .executeTakeFirstOrThrow();
      return row.currency;
    },
    /** The store's row, locked against orders and price writes until the settings change commits. */
    async findForSettings(storeId: string, tx: Executor) {
      return tx.selectFrom("stores").selectAll().where("id", "=", storeId).forUpdate().executeTakeFirst();
    },
    /** Whether the database knows an IANA zone (its zone data may lag the runtime's by a release). */
    async knowsTimeZone(zone: string): Promise<boolean> {
      try {
        await sql`SELECT now() AT TIME ZONE ${zone}`.execute(db);
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === "22023") return false;
        throw error;
      }
    },
    async hasOrders(storeId: string, tx: Executor): Promise<boolean> {
      const row = await tx
        .selectFrom("orders")
        .select(sql<number>`1`.as("one"))
        .where("store_id", "=", storeId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    /**
     * Re-expresses every product price of the store from `fromExponent` to `toExponent` decimals,
     * keeping the amounts as written (19.90 USD becomes 19.90 EUR, 1500 JPY becomes 1500.00 USD).
     * Answers how many prices cannot be written in the new currency (a fraction it has no digits
     * for, or past the largest amount); in that case nothing changed.
     */
    async rescalePrices(storeId: string, fromExponent: number, toExponent: number, tx: Executor) {
      if (fromExponent === toExponent) return 0;
      const factor = 10 ** Math.abs(toExponent - fromExponent);
      const up = toExponent > fromExponent;
      const unfit = (column: string) =>
        up
          ? sql<boolean>`${sql.ref(column)} > ${Math.floor(MAX_MINOR_UNITS / factor)}`
          : sql<boolean>`${sql.ref(column)} % ${factor} <> 0`;
      const scaled = (column: string) =>
        up ? sql`${sql.ref(column)} * ${factor}` : sql`${sql.ref(column)} / ${factor}`;
      // Every amount a variant has (issue 30): its price and its compare-at price.
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM product_variants
         WHERE store_id = ${storeId} AND (${unfit("price_minor")} OR coalesce(${unfit("compare_at_minor")}, false))`.execute(
        tx,
      );
      const bad = Number(rows[0]?.n ?? 0);
      if (bad > 0) return bad;
      await sql`
        UPDATE product_variants SET price_minor = ${scaled("price_minor")}, compare_at_minor = ${scaled("compare_at_minor")}
         WHERE store_id = ${storeId}`.execute(tx);
      await sql`
        UPDATE products SET price_minor = ${scaled("price_minor")}, price_max_minor = ${scaled("price_max_minor")}
         WHERE store_id = ${storeId}`.execute(tx);
      return 0;
    },
    async updateSettings(storeId: string, change: StoreSettingsChange, now: Date, tx: Executor) {
      const { address, ...rest } = change;
      return tx
        .updateTable("stores")
        .set({
          ...rest,
          ...(address !== undefined ? { address: address === null ? null : jsonb(address) } : {}),
          updated_at: now,
        })
        .where("id", "=", storeId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  };
}
export type StoreRepo = ReturnType<typeof createStoreRepo>;

/** The store columns of a row that joined `stores` with `selectAll("s")`. */
export function pickStore(row: Store): Store {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    currency: row.currency,
    owner_account_id: row.owner_account_id,
    next_order_number: row.next_order_number,
    created_at: row.created_at,
    updated_at: row.updated_at,
    contact_email: row.contact_email,
    address: row.address,
    time_zone: row.time_zone,
    order_number_prefix: row.order_number_prefix,
    taxes_included: row.taxes_included,
    tax_shipping: row.tax_shipping,
  };
}
