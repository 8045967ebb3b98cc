import { sql } from "kysely";
import { OrderStatus, ProductStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";

/** The figures of a store's overview page, each one indexed query. */
export function createOverviewRepo(db: Executor) {
  return {
    /**
     * Orders and sales net of refunds (cancelled orders aside) since each of `since` (oldest last), counted from
     * the orders created since the oldest: one range of the store's creation index.
     */
    async sales(storeId: string, since: { today: Date; week: Date; month: Date }) {
      // Net of refunds (issue 31): what the orders placed then brought in, after what was returned.
      const sales = (from: Date) => sql<number>`coalesce(sum(total_minor - refunded_minor) FILTER (
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
    /**
     * Orders and sales (cancelled orders aside) per day of `timeZone`, for the `days` days that
     * end with the one `today` starts: every day present, the empty ones with zeros. One range of
     * the store's creation index, grouped by the day in the store's time zone.
     */
    async daily(storeId: string, today: Date, days: number, timeZone: string) {
      const { rows } = await sql<{ day: string; orders: number; sales: number }>`
        WITH last_day AS (SELECT (${today}::timestamptz AT TIME ZONE ${timeZone})::date AS day),
        per_day AS (
          SELECT (created_at AT TIME ZONE ${timeZone})::date AS day,
                 count(*) AS orders,
                 coalesce(sum(total_minor - refunded_minor) FILTER (WHERE status <> ${OrderStatus.cancelled}), 0) AS sales
            FROM orders
           WHERE store_id = ${storeId}
             AND created_at >= ((SELECT day FROM last_day) - ${days - 1}::int)::timestamp AT TIME ZONE ${timeZone}
           GROUP BY 1
        )
        SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(p.orders, 0) AS orders, coalesce(p.sales, 0) AS sales
          FROM (SELECT (SELECT day FROM last_day) - n AS day FROM generate_series(0, ${days - 1}::int) AS n) d
          LEFT JOIN per_day p ON p.day = d.day
         ORDER BY d.day`.execute(db);
      return rows;
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
    /** Tracked variants of active products with at most `threshold` to sell, fewest first. */
    async lowStock(storeId: string, threshold: number, limit: number) {
      return db
        .selectFrom("product_variants as v")
        .innerJoin("products as p", (j) =>
          j.onRef("p.store_id", "=", "v.store_id").onRef("p.id", "=", "v.product_id"),
        )
        .select([
          "v.product_id",
          "v.id",
          "p.title",
          "v.option1",
          "v.option2",
          "v.option3",
          "v.sku",
          "v.available",
        ])
        .where("v.store_id", "=", storeId)
        .where("v.tracked", "=", true)
        .where("v.available", "<=", threshold)
        .where("p.status", "=", ProductStatus.active)
        .orderBy("v.available")
        .orderBy("v.id")
        .limit(limit)
        .execute();
    },
    /**
     * The starts of today, of the 7 days and of the `days` days that end today in `timeZone` (an
     * IANA name), as instants, for `now`: calendar days counted in the zone, as `daily` counts
     * them, so a DST change inside a window (a day of 23 or 25 hours) never moves it by an hour.
     */
    async dayStarts(now: Date, timeZone: string, days: number) {
      const { rows } = await sql<{ today: Date; week: Date; month: Date }>`
        SELECT d AT TIME ZONE ${timeZone} AS today,
               (d - interval '6 days') AT TIME ZONE ${timeZone} AS week,
               (d - ${days - 1}::int * interval '1 day') AT TIME ZONE ${timeZone} AS month
          FROM (SELECT date_trunc('day', ${now}::timestamptz AT TIME ZONE ${timeZone}) AS d) AS local`.execute(
        db,
      );
      return rows[0]!;
    },
  };
}
export type OverviewRepo = ReturnType<typeof createOverviewRepo>;
