import { useId } from "react";
import type { Overview } from "../api/types.ts";
import { money } from "../lib/format.ts";
import { Table } from "./list.tsx";

type Day = Overview["dailySales"][number];

// A day as the chart names it ("Nov 3"): its date is already the store's day, read as UTC.
const dayName = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const dayLong = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});
const label = (date: string, long = false) =>
  (long ? dayLong : dayName).format(new Date(`${date}T00:00:00Z`));

const WIDTH = 600;
const HEIGHT = 180;
const BOTTOM = 1;
const TOP = 8;

/**
 * Daily sales over the last 30 days as bars (today last), with the same figures as a table for
 * screen readers and anyone who wants the numbers: the picture is described in one sentence
 * (its highest day and the total) and hidden from assistive technology; the table is the data.
 * Drawn in SVG with attributes and classes only (the CSP allows no inline style); it scales to
 * the panel's width, so a phone shows all 30 bars.
 */
export function SalesChart({ days, currency }: { days: Day[]; currency: string }) {
  const summaryId = useId();
  const values = days.map((d) => Number(d.total));
  const max = Math.max(...values, 0);
  const best = days[values.indexOf(max)];
  const sum = values.reduce((a, b) => a + b, 0);
  const orders = days.reduce((n, d) => n + d.orders, 0);
  const decimals = days[0]?.total.split(".")[1]?.length ?? 2;
  const slot = WIDTH / Math.max(days.length, 1);
  const scale = max > 0 ? (HEIGHT - BOTTOM - TOP) / max : 0;
  const ticks = days.length ? [0, Math.floor((days.length - 1) / 2), days.length - 1] : [];
  return (
    <figure className="sales-chart">
      <p id={summaryId} className="muted small">
        {max > 0 && best
          ? `${money(sum.toFixed(decimals), currency)} from ${orders} orders in ${days.length} days; the best day was ${label(best.date, true)} with ${money(best.total, currency)}.`
          : `No sales in the last ${days.length} days.`}
      </p>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <line className="axis" x1={0} x2={WIDTH} y1={HEIGHT - BOTTOM} y2={HEIGHT - BOTTOM} />
        {days.map((d, i) => {
          const h = Math.max(Number(d.total) * scale, Number(d.total) > 0 ? 1.5 : 0);
          return (
            <rect
              key={d.date}
              className={i === days.length - 1 ? "bar today" : "bar"}
              x={i * slot + slot * 0.15}
              width={slot * 0.7}
              y={HEIGHT - BOTTOM - h}
              height={h}
              rx={2}
            >
              <title>{`${label(d.date, true)}: ${money(d.total, currency)}, ${d.orders} orders`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart-axis small muted" aria-hidden="true">
        {ticks.map((i) => (
          <span key={i}>{i === days.length - 1 ? "Today" : label(days[i]!.date)}</span>
        ))}
      </div>
      <details className="chart-data">
        <summary>Show the figures</summary>
        <Table
          caption="Sales per day, last 30 days"
          headers={["Day", { label: "Orders", num: true }, { label: "Sales", num: true }]}
        >
          {[...days].reverse().map((d) => (
            <tr key={d.date}>
              <td data-label="Day">{label(d.date, true)}</td>
              <td data-label="Orders" className="num">
                {d.orders}
              </td>
              <td data-label="Sales" className="num">
                {money(d.total, currency)}
              </td>
            </tr>
          ))}
        </Table>
      </details>
    </figure>
  );
}
