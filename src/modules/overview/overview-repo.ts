import { sql } from "kysely";
import { OrderStatus, ProductStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";

/** The figures of a store's overview page, each one indexed query. */
export function createOverviewRepo(db: Executor) {
  return {
    /**
     * Orders and sales (cancelled orders aside) since each of `since` (oldest last), counted from
     * the orders created since the oldest: one range of the store's creation index.
     */
    async sales(storeId: string, since: { today: Date; week: Date; month: Date }) {
      const sales = (from: Date) => sql<number>`coalesce(sum(total_minor) FILTER (
          WHERE created_at >= ${from} AND status <> ${OrderStatus.cancelled}), 0)`;
      const count = (from: Date) => sql<number>`count(*) FILTER (WHERE created_at >= ${from})`;
      return db
        .selectFrom("orders")
        .select([
          count(since.today).as("today_orders"),
          sales(since.today).as("today_sales"),
          count(since.week).as("week_orders"),
          sales(since.week).as("week_sales"),
          count(since.month).as("month_orders"),
          sales(since.month).as("month_sales"),
        ])
        .where("store_id", "=", storeId)
        .where("created_at", ">=", since.month)
        .executeTakeFirstOrThrow();
    },
    async ordersByStatus(storeId: string) {
      return db
        .selectFrom("orders")
        .select((eb) => ["status", eb.fn.countAll<number>().as("n")])
        .where("store_id", "=", storeId)
        .groupBy("status")
        .execute();
    },
    /** Active products with at most `threshold` in stock, fewest first. */
    async lowStock(storeId: string, threshold: number, limit: number) {
      return db
        .selectFrom("products")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("status", "=", ProductStatus.active)
        .where("stock", "<=", threshold)
        .orderBy("stock")
        .orderBy("id")
        .limit(limit)
        .execute();
    },
    /** The start of today in `timeZone` (an IANA name), as an instant, for `now`. */
    async startOfDay(now: Date, timeZone: string): Promise<Date> {
      const { rows } = await sql<{ start: Date }>`
        SELECT (date_trunc('day', ${now}::timestamptz AT TIME ZONE ${timeZone}) AT TIME ZONE ${timeZone}) AS start`.execute(
        db,
      );
      return rows[0]!.start;
    },
  };
}
export type OverviewRepo = ReturnType<typeof createOverviewRepo>;
