import {
  isTimeZone,
  LOW_STOCK_THRESHOLD,
  ORDER_STATUS_NAMES,
  type OrderStatus,
} from "../../contracts/index.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import type { OrderService } from "../orders/orders-service.ts";
import { variantTitle } from "../products/product-options.ts";
import { valuesOf } from "../products/products-schemas.ts";
import type { OverviewRepo } from "./overview-repo.ts";

/** Days of the overview's daily sales (its chart): the last 30, today included. */
export const DAILY_SALES_DAYS = 30;

/**
 * A store at a glance: sales today and over the last 7 and 30 days (days as the store's time zone
 * counts them, or another zone asked for), orders by status, the latest orders and the products
 * running out.
 */
export function createOverviewService(deps: {
  repo: OverviewRepo;
  orders: Pick<OrderService, "list">;
  clock: Clock;
}) {
  return {
    async get(store: Store, timeZone = store.time_zone) {
      const unknownZone = () =>
        new AppError("VALIDATION_FAILED", {
          message: "Unknown time zone.",
          details: [{ field: "timeZone", message: "must be an IANA time zone such as Europe/Berlin" }],
        });
      if (!isTimeZone(timeZone)) throw unknownZone();
      const now = deps.clock.now();
      // PostgreSQL's zone database may lag the runtime's by a release: a name only one knows is a 400.
      // "Last 7 days" is today and the six calendar days before, in the zone (repo dayStarts).
      const { today, week, month } = await deps.repo
        .dayStarts(now, timeZone, DAILY_SALES_DAYS)
        .catch((error: { code?: string }) => {
          throw error?.code === "22023" ? unknownZone() : error;
        });
      const [sales, daily, byStatus, recent, low] = await Promise.all([
        deps.repo.sales(store.id, { today, week, month }),
        deps.repo.daily(store.id, today, DAILY_SALES_DAYS, timeZone),
        deps.repo.ordersByStatus(store.id),
        deps.orders.list(store, { limit: 5 }),
        deps.repo.lowStock(store.id, LOW_STOCK_THRESHOLD, 5),
      ]);
      const money = (minor: number) => formatMinorUnits(Number(minor), store.currency);
      const counts = Object.fromEntries(ORDER_STATUS_NAMES.map((s) => [s, 0])) as Record<OrderStatus, number>;
      for (const row of byStatus) counts[row.status] = Number(row.n);
      return {
        currency: store.currency,
        timeZone,
        sales: {
          today: {
            orders: Number(sales.today_orders),
            total: money(sales.today_sales),
            since: today.toISOString(),
          },
          last7Days: {
            orders: Number(sales.week_orders),
            total: money(sales.week_sales),
            since: week.toISOString(),
          },
          last30Days: {
            orders: Number(sales.month_orders),
            total: money(sales.month_sales),
            since: month.toISOString(),
          },
        },
        dailySales: daily.map((d) => ({ date: d.day, orders: Number(d.orders), total: money(d.sales) })),
        ordersByStatus: counts,
        recentOrders: recent.items,
        lowStockThreshold: LOW_STOCK_THRESHOLD,
        lowStock: low.map((v) => ({
          productId: v.product_id,
          variantId: v.id,
          title: v.title,
          variantTitle: variantTitle(valuesOf(v)),
          sku: v.sku,
          available: v.available,
        })),
      };
    },
  };
}
export type OverviewService = ReturnType<typeof createOverviewService>;
