import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../api/client.ts";
import { useStores } from "../api/session.ts";
import type { Overview } from "../api/types.ts";
import { Table } from "../components/list.tsx";
import { SalesChart } from "../components/sales-chart.tsx";
import { Badge, Empty, Loading, PageHeader, Panel } from "../components/ui.tsx";
import { ORDER_STATUS_NAMES, ORDER_STATUSES, Scope } from "../contract.ts";
import { money, when } from "../lib/format.ts";
import { useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";

export function OverviewPage() {
  const slug = useSlug();
  const store = useStores().data?.find((s) => s.slug === slug);
  const overview = useQuery({
    queryKey: ["overview", slug],
    queryFn: async () =>
      (
        await unwrap<Overview>(
          // Days are the store's (its time zone in Settings), whoever looks and from wherever.
          api.GET("/api/v1/dashboard/stores/{slug}/overview", { params: { path: { slug } } }),
        )
      ).data,
  });
  const o = overview.data;
  return (
    <>
      <PageHeader
        title={store ? store.name : "Overview"}
        subtitle={
          o ? (
            <>
              Your store at a glance. Days end at midnight in {o.timeZone.replaceAll("_", " ")} (
              <Link to={`/stores/${slug}/settings`}>change</Link>).
            </>
          ) : (
            "Your store at a glance."
          )
        }
      />
      {!o ? (
        <Loading what="Loading the overview" />
      ) : (
        <>
          <section className="stat-grid" aria-label="Sales">
            {(
              [
                ["Today", o.sales.today],
                ["Last 7 days", o.sales.last7Days],
                ["Last 30 days", o.sales.last30Days],
              ] as const
            ).map(([label, w]) => (
              <div className="stat" key={label}>
                <p className="muted small">{label}</p>
                <p className="stat-value">{money(w.total, o.currency)}</p>
                <p className="small muted">
                  {w.orders} {w.orders === 1 ? "order" : "orders"}
                </p>
              </div>
            ))}
          </section>
          <Panel title="Sales, last 30 days">
            <SalesChart days={o.dailySales} currency={o.currency} />
          </Panel>
          <Panel title="Orders by status">
            <ul className="status-counts">
              {ORDER_STATUS_NAMES.map((s) => (
                <li key={s}>
                  <Link to={`/stores/${slug}/orders?status=${s}`}>
                    <Badge value={s} label={ORDER_STATUSES[s].label} />{" "}
                    <span className="strong">{o.ordersByStatus[s] ?? 0}</span>
                  </Link>
                </li>
              ))}
            </ul>
          </Panel>
          <div className="columns">
            <Panel title="Recent orders">
              {o.recentOrders.length === 0 ? (
                <Empty>No orders yet.</Empty>
              ) : (
                <Table headers={["Order", { label: "Total", num: true }, "Status", "Placed"]}>
                  {o.recentOrders.map((r) => (
                    <tr key={r.id}>
                      <td data-label="Order">
                        <Link to={`/stores/${slug}/orders/${r.id}`}>{r.name}</Link>
                      </td>
                      <td data-label="Total" className="num">
                        {money(r.total, r.currency)}
                      </td>
                      <td data-label="Status">
                        <Badge value={r.status} label={ORDER_STATUSES[r.status].label} />
                      </td>
                      <td data-label="Placed" className="small">
                        {when(r.createdAt)}
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </Panel>
            <Panel title="Low stock">
              {o.lowStock.length === 0 ? (
                <Empty>
                  Every variant of an active product has more than {o.lowStockThreshold} in stock.
                </Empty>
              ) : (
                <Table headers={["Product", "Variant", { label: "In stock", num: true }]}>
                  {o.lowStock.map((v) => (
                    <tr key={v.variantId}>
                      <td data-label="Product" className="user-text">
                        <Link to={`/stores/${slug}/products`}>{v.title}</Link>
                      </td>
                      <td data-label="Variant" className="user-text">
                        {v.variantTitle}
                        {v.sku ? <span className="muted small"> · {v.sku}</span> : null}
                      </td>
                      <td data-label="In stock" className="num">
                        {v.available}
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </Panel>
          </div>
        </>
      )}
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug",
    element: <OverviewPage />,
    storeMenu: { label: "Overview", order: 10, scope: Scope.read_orders },
  }),
];
