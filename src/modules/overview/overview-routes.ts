import Type from "typebox";
import { ORDER_STATUS_NAMES, OrderResource, Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, Timestamp } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, StoreParams } from "../families/dashboard-family.ts";
import { DAILY_SALES_DAYS, type OverviewService } from "./overview-service.ts";

const Window = Type.Object({
  orders: Type.Integer({ description: "Orders created in the window, cancelled ones included." }),
  total: Type.String({ description: "Their total, cancelled orders aside, in the store's currency." }),
  since: Timestamp,
});

const Day = Type.Object({
  date: Type.String({ format: "date", description: "The day, in the overview's time zone." }),
  orders: Type.Integer({ description: "Orders created that day, cancelled ones included." }),
  total: Type.String({ description: "Their total, cancelled orders aside, in the store's currency." }),
});

const Overview = Type.Object(
  {
    currency: Type.String(),
    timeZone: Type.String(),
    sales: Type.Object({ today: Window, last7Days: Window, last30Days: Window }),
    dailySales: Type.Array(Day, {
      maxItems: DAILY_SALES_DAYS,
      description: `Each of the last ${DAILY_SALES_DAYS} days, oldest first and today last, days without orders included.`,
    }),
    ordersByStatus: Type.Object(Object.fromEntries(ORDER_STATUS_NAMES.map((s) => [s, Type.Integer()]))),
    recentOrders: Type.Array(OrderResource, { description: "The five newest orders." }),
    lowStockThreshold: Type.Integer(),
    lowStock: Type.Array(
      Type.Object(
        {
          productId: Type.String(),
          variantId: Type.String(),
          title: Type.String({ description: "The product's title." }),
          variantTitle: Type.String({
            description: "The variant's (`Default` for a product without options).",
          }),
          sku: Type.Union([Type.String(), Type.Null()]),
          available: Type.Integer({ description: "What can be sold, over every location." }),
        },
        { title: "LowStockVariant" },
      ),
      {
        description:
          "Up to five tracked variants of active products with at most `lowStockThreshold` to sell, fewest first.",
      },
    ),
  },
  { title: "StoreOverview" },
);

export function registerOverviewRoutes(app: App, overview: OverviewService) {
  app.get(
    "/stores/:slug/overview",
    dashboardRoute({
      operationId: "dashboardGetOverview",
      scope: Scope.read_orders,
      tags: ["Dashboard: stores"],
      summary: "A store at a glance",
      description:
        "Sales today and over the last 7 and 30 days, sales per day over the last 30, orders by status, the newest orders and the products running out of stock. Days are counted in the store's time zone (its settings), or in `timeZone` when given.",
      params: StoreParams,
      querystring: Type.Object(
        {
          timeZone: Type.Optional(
            Type.String({
              maxLength: 64,
              pattern: "^[A-Za-z0-9_+/-]+$",
              description: "IANA time zone, e.g. `Asia/Riyadh`, to count days in instead of the store's.",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 200: Envelope(Overview) },
    }),
    async (request) => ({
      success: true as const,
      data: await overview.get(storeOf(request), request.query.timeZone),
    }),
  );
}

export function overviewRoutes(overview: OverviewService): FeatureRoutes {
  return { store: (app) => registerOverviewRoutes(app, overview) };
}
