import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { AddressJson, AppMetadataJson, Customer } from "../../db/schema.ts";
import { storeTable } from "../../db/store-table.ts";
import { containsPattern, keysetPage, type PagePlan } from "../../lib/pagination.ts";

/**
 * A customer whose e-mail address or full name contains `text` (case-insensitively). The name is
 * the expression the trigram index of migration 20261124_0010 is built on, written the same way.
 */
export function matchesCustomer(text: string, table = "customers") {
  const like = containsPattern(text);
  const col = (name: string) => sql.ref(`${table}.${name}`);
  return sql<boolean>`(${col("email")} ILIKE ${like} OR (${col("first_name")} || ' ' || ${col("last_name")}) ILIKE ${like})`;
}

/** A customer's row as the service builds it (JSON columns as values; the repo writes them as JSON). */
export type CustomerRow = Omit<Customer, "addresses" | "tags" | "metadata"> & {
  addresses: AddressJson[];
  tags: string[];
  metadata: AppMetadataJson;
};

/** A customer's orders in figures (CustomerRepo.orderFigures). */
export interface OrderFigures {
  orders: number;
  /** What they paid less what was refunded to them, in minor units. */
  spentMinor: number;
  lastOrderAt: Date | null;
}
export const NO_ORDERS: OrderFigures = { orders: 0, spentMinor: 0, lastOrderAt: null };

/** Columns a change may set. */
export type CustomerChanges = Partial<
  Pick<
    CustomerRow,
    | "email"
    | "first_name"
    | "last_name"
    | "phone"
    | "anonymized_at"
    | "addresses"
    | "note"
    | "tags"
    | "tax_exempt"
    | "metadata"
  >
> & { updated_at: Date };

function jsonColumns<T extends { addresses?: AddressJson[]; tags?: string[]; metadata?: AppMetadataJson }>(
  row: T,
) {
  const { addresses, tags, metadata, ...rest } = row;
  return {
    ...rest,
    ...(addresses !== undefined ? { addresses: jsonb(addresses) } : {}),
    ...(tags !== undefined ? { tags: jsonb(tags) } : {}),
    ...(metadata !== undefined ? { metadata: jsonb(metadata) } : {}),
  };
}

export function createCustomerRepo(db: Executor) {
  return {
    ...storeTable(db, "customers"),
    /** Inserts unless the store already has this e-mail address (case-insensitively); then returns undefined. */
    async insert(row: CustomerRow, tx: Executor = db) {
      return tx
        .insertInto("customers")
        .values(jsonColumns(row))
        .onConflict((oc) => oc.expression(sql`store_id, lower(email)`).doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    /**
     * The store's customer with this e-mail address (case-insensitively), if any. `forOrder`: locked
     * as `findForOrder` locks, for an order's transaction.
     */
    async findByEmail(storeId: string, email: string, tx: Executor = db, forOrder = false) {
      const q = tx
        .selectFrom("customers")
        .selectAll()
        .where("store_id", "=", storeId)
        .where(sql<boolean>`lower(email) = lower(${email})`);
      return (forOrder ? q.forKeyShare() : q).executeTakeFirst();
    },
    /**
     * The customer an order is being placed for, key-share locked until the order's transaction
     * ends. A deletion locks the customer for update, so the two are ordered: the order waits and
     * then sees the customer deleted or anonymised (and is refused), or the deletion waits for
     * the order to commit and then erases it with the customer's other orders. Without the lock an
     * order committed just after the erasure would keep the customer's address. Key share is the
     * weakest lock a deletion still waits for: edits of the customer, and other orders, do not.
     */
    async findForOrder(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("customers")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forKeyShare()
        .executeTakeFirst();
    },
    /** Locks the row until the transaction ends (edits and deletion of one customer, one at a time). */
    async findForUpdate(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("customers")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirst();
    },
    /** Applies `changes`; undefined when another customer of the store has the e-mail address. */
    async update(storeId: string, id: string, changes: CustomerChanges, tx: Executor) {
      if (changes.email !== undefined) {
        const taken = await tx
          .selectFrom("customers")
          .select("id")
          .where("store_id", "=", storeId)
          .where(sql<boolean>`lower(email) = lower(${changes.email})`)
          .where("id", "<>", id)
          .executeTakeFirst();
        if (taken) return undefined;
      }
      return tx
        .updateTable("customers")
        .set(jsonColumns(changes))
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async delete(storeId: string, id: string, tx: Executor) {
      await tx.deleteFrom("customers").where("store_id", "=", storeId).where("id", "=", id).execute();
    },
    /**
     * Each customer's orders in figures, in one statement: how many (any status), what they paid
     * less what was refunded to them (minor units), and when they last ordered. Customers without
     * orders are left out of the map.
     */
    async orderFigures(storeId: string, ids: readonly string[], tx: Executor = db) {
      const figures = new Map<string, OrderFigures>();
      if (ids.length === 0) return figures;
      const rows = await tx
        .selectFrom("orders")
        .select((eb) => [
          "customer_id",
          eb.fn.countAll<string>().as("orders"),
          sql<string>`coalesce(sum(received_minor - refunded_minor), 0)`.as("spent"),
          eb.fn.max("created_at").as("last_order_at"),
        ])
        .where("store_id", "=", storeId)
        .where("customer_id", "in", [...new Set(ids)])
        .groupBy("customer_id")
        .execute();
      for (const r of rows) {
        figures.set(r.customer_id, {
          orders: Number(r.orders),
          spentMinor: Number(r.spent),
          lastOrderAt: r.last_order_at as Date | null,
        });
      }
      return figures;
    },
    async list(
      storeId: string,
      plan: PagePlan,
      filter: { q?: string | undefined; ids?: string | undefined } = {},
      tx: Executor = db,
    ) {
      let q = tx.selectFrom("customers").selectAll().where("store_id", "=", storeId);
      if (filter.q) q = q.where(matchesCustomer(filter.q));
      // Comma-separated, as the query's pattern has it.
      if (filter.ids) q = q.where("id", "in", filter.ids.split(","));
      return keysetPage(q, plan).execute();
    },
  };
}
export type CustomerRepo = ReturnType<typeof createCustomerRepo>;
