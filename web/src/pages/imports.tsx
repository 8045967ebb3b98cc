import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import { Table } from "../components/list.tsx";
import { Badge, Empty, FormAlert, PageHeader, Panel } from "../components/ui.tsx";
import { IMPORT_KINDS, IMPORT_STATUSES, type ImportKind } from "../contract.ts";
import type { components } from "../generated/api.ts";
import { when } from "../lib/format.ts";
import { useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";

type CsvImport = components["schemas"]["CsvImport"];

/** Most characters the upload takes (the server says the same: 5,000,000). */
const MAX_CHARS = 5_000_000;

const EXPORTS = [
  { resource: "products", label: "Products", hint: "One row per variant, in the columns the import reads." },
  { resource: "customers", label: "Customers", hint: "One row per customer, with their default address." },
  { resource: "orders", label: "Orders", hint: "One row per line item, with the order's totals." },
] as const;

function useImport(slug: string, id: string | null) {
  return useQuery({
    queryKey: ["import", slug, id],
    enabled: id !== null,
    queryFn: async () =>
      (
        await unwrap<CsvImport>(
          api.GET("/api/v1/dashboard/stores/{slug}/imports/{id}", { params: { path: { slug, id: id! } } }),
        )
      ).data,
    // Polled while a run is waiting or under way; still otherwise.
    refetchInterval: (q) =>
      q.state.data && ["queued", "running"].includes(q.state.data.status) ? 1000 : false,
  });
}

function Progress({ job }: { job: CsvImport }) {
  const total = Math.max(job.totalItems, 1);
  const percent = Math.round((job.doneItems / total) * 100);
  const noun = job.kind === "products" ? "products" : "customers";
  const active = job.status === "queued" || job.status === "running";
  return (
    <div className="import-progress" aria-live="polite">
      <p>
        <Badge value={job.status} label={IMPORT_STATUSES[job.status].label} />{" "}
        <strong>{job.dryRun ? "Dry run" : "Import"}</strong>: {job.doneItems} of {job.totalItems} {noun} gone
        through
      </p>
      <progress
        max={total}
        value={job.doneItems}
        aria-label={`${job.dryRun ? "Dry run" : "Import"} progress`}
      >
        {percent}%
      </progress>
      {!active ? (
        <ul className="import-counts">
          <li>
            <span className="stat-value">{job.created}</span> {job.dryRun ? "would be created" : "created"}
          </li>
          <li>
            <span className="stat-value">{job.skipped}</span> already in the store (left as they are)
          </li>
          <li>
            <span className="stat-value">{job.errorCount}</span>{" "}
            {job.errorCount === 1 ? "problem" : "problems"}
          </li>
        </ul>
      ) : null}
      {job.failure ? <FormAlert message={job.failure} /> : null}
    </div>
  );
}

function RowErrors({ job }: { job: CsvImport }) {
  if (job.errors.length === 0) return <Empty>No problems found: every row can be imported.</Empty>;
  return (
    <>
      <p className="muted small">
        {job.errorCount} {job.errorCount === 1 ? "problem" : "problems"}
        {job.errorCount > job.errors.length ? ` (the first ${job.errors.length} shown)` : ""}. Rows with a
        problem are left out; fix them in the file and upload it again.
      </p>
      <Table headers={[{ label: "Row", num: true }, "Column", "Problem"]} caption="Problems by row">
        {job.errors.map((e) => (
          <tr key={`${e.row}-${e.column}-${e.message}`}>
            <td data-label="Row" className="num">
              {e.row}
            </td>
            <td data-label="Column">{e.column ?? "Whole row"}</td>
            <td data-label="Problem" className="user-text">
              {e.message}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

function Preview({ job }: { job: CsvImport }) {
  const p = job.preview;
  const errorRows = new Set(job.errors.map((e) => e.row));
  return (
    <>
      <ul className="import-counts">
        <li>
          <span className="stat-value">{job.totalRows}</span> rows
        </li>
        <li>
          <span className="stat-value">{job.totalItems}</span> {job.kind}
        </li>
        <li>
          <span className="stat-value">{p.existingItems}</span> already in the store
        </li>
        <li>
          <span className="stat-value">{p.invalidItems}</span> with problems
        </li>
      </ul>
      {p.ignoredColumns.length ? (
        <p className="muted small">Columns not imported: {p.ignoredColumns.join(", ")}.</p>
      ) : null}
      {/* A scrolling region is reached by the keyboard (axe: scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to be scrolled with keys. */}
      <section className="table-wrap import-preview" aria-label="First rows of the file" tabIndex={0}>
        <table>
          <caption className="visually-hidden">The first rows of the file as read</caption>
          <thead>
            <tr>
              <th scope="col" className="num">
                Row
              </th>
              {p.columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr key={r.row} className={errorRows.has(r.row) ? "row-error" : undefined}>
                <td className="num" data-label="Row">
                  {r.row}
                  {errorRows.has(r.row) ? <span className="visually-hidden"> (has a problem)</span> : null}
                </td>
                {r.cells.map((c, i) => (
                  <td key={p.columns[i]} className="user-text" data-label={p.columns[i]}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

export function ImportsPage() {
  const slug = useSlug();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<ImportKind>("products");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [id, setId] = useState<string | null>(null);
  const job = useImport(slug, id).data;
  const kindId = useId();
  const fileId = useId();

  async function upload(event: React.FormEvent) {
    event.preventDefault();
    setError(null);
    if (!file) return setError("Choose a CSV file first.");
    if (file.size > MAX_CHARS * 4)
      return setError("This file is too large: split it into files of at most 20,000 rows.");
    setBusy(true);
    try {
      const csv = await file.text();
      const body = { fileName: file.name.slice(0, 255), csv };
      const answer =
        kind === "products"
          ? api.POST("/api/v1/dashboard/stores/{slug}/imports/products", { params: { path: { slug } }, body })
          : api.POST("/api/v1/dashboard/stores/{slug}/imports/customers", {
              params: { path: { slug } },
              body,
            });
      const checked = (await unwrap<CsvImport>(answer)).data;
      queryClient.setQueryData(["import", slug, checked.id], checked);
      setId(checked.id);
    } catch (e) {
      setError(
        e instanceof ApiError
          ? [e.message, ...e.fields.map((f) => `The file ${f.message}.`)].join(" ")
          : "The file could not be sent.",
      );
    } finally {
      setBusy(false);
    }
  }

  async function run(dryRun: boolean) {
    if (!job) return;
    setError(null);
    try {
      const options = { params: { path: { slug, id: job.id } }, body: { dryRun } };
      const queued = (
        await unwrap<CsvImport>(
          job.kind === "products"
            ? api.POST("/api/v1/dashboard/stores/{slug}/imports/products/{id}/run", options)
            : api.POST("/api/v1/dashboard/stores/{slug}/imports/customers/{id}/run", options),
        )
      ).data;
      queryClient.setQueryData(["import", slug, job.id], queued);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : "The run could not be started.");
    }
  }

  const active = job && (job.status === "queued" || job.status === "running");
  return (
    <>
      <PageHeader
        title="Import and export"
        subtitle="Bring products and customers in from a spreadsheet, and take your data out as CSV."
      />
      <div className="columns">
        <Panel title="Import from CSV">
          <form className="form" onSubmit={upload} noValidate>
            <div className="field">
              <label htmlFor={kindId}>What the file holds</label>
              <select id={kindId} value={kind} onChange={(e) => setKind(e.target.value as ImportKind)}>
                {(Object.keys(IMPORT_KINDS) as ImportKind[]).map((k) => (
                  <option key={k} value={k}>
                    {IMPORT_KINDS[k].label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={fileId}>CSV file</label>
              <input
                id={fileId}
                type="file"
                accept=".csv,text/csv"
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                aria-describedby={`${fileId}-hint`}
              />
              <p className="hint small muted" id={`${fileId}-hint`}>
                {kind === "products"
                  ? "Rows with the same Handle are one product; each row is a variant. Products whose SKU (or title, without SKUs) is already in the store are skipped."
                  : "One customer per row. Customers whose e-mail address is already in the store are skipped."}{" "}
                Up to 20,000 rows. Nothing is written until you run the import.
              </p>
            </div>
            <FormAlert message={error} />
            <div className="form-actions">
              <button type="submit" className="primary" disabled={busy}>
                {busy ? "Checking the file…" : "Check the file"}
              </button>
            </div>
          </form>
        </Panel>
        <Panel title="Export to CSV">
          <ul className="export-list">
            {EXPORTS.map((x) => (
              <li key={x.resource}>
                <a
                  className="button-link"
                  href={`/api/v1/dashboard/stores/${slug}/export/${x.resource}.csv`}
                  download
                >
                  Download {x.label.toLowerCase()}
                </a>
                <span className="muted small">{x.hint}</span>
              </li>
            ))}
          </ul>
          <p className="muted small">
            Large stores download as the file is written: your browser shows its progress. Text that a
            spreadsheet would run as a formula starts with an apostrophe.
          </p>
        </Panel>
      </div>
      {job ? (
        <>
          <Panel title={`Preview of ${job.fileName}`}>
            <Preview job={job} />
            <div className="form-actions">
              <button
                type="button"
                className="secondary"
                disabled={Boolean(active)}
                onClick={() => run(true)}
              >
                Dry run
              </button>
              <button type="button" className="primary" disabled={Boolean(active)} onClick={() => run(false)}>
                Import {job.kind}
              </button>
            </div>
            {job.status !== "previewed" ? <Progress job={job} /> : null}
            <p className="muted small">Checked {when(job.createdAt)}.</p>
          </Panel>
          <Panel title="Problems by row">
            <RowErrors job={job} />
          </Panel>
        </>
      ) : null}
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/import-export",
    element: <ImportsPage />,
    storeMenu: { label: "Import and export", order: 45 },
  }),
];
