import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import type { AppData } from "../api/types.ts";
import { Badge, Empty, Loading, Panel } from "./ui.tsx";

type Kind = "order" | "customer" | "product";

async function fetchAppData(slug: string, kind: Kind, id: string) {
  const params = { params: { path: { slug, id } } };
  const call =
    kind === "order"
      ? api.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", params)
      : kind === "customer"
        ? api.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/app-data", params)
        : api.GET("/api/v1/dashboard/stores/{slug}/products/{id}/app-data", params);
  return (await unwrap<AppData[]>(call)).data;
}

/** Which apps keep their own data on a record, and what: each app sees only its own. */
export function useAppData(slug: string, kind: Kind, id: string) {
  return useQuery({ queryKey: [kind, slug, id, "app-data"], queryFn: () => fetchAppData(slug, kind, id) });
}

/** The app data of a record, as a list of apps and their pairs. */
export function AppDataList({ slug, kind, id }: { slug: string; kind: Kind; id: string }) {
  const data = useAppData(slug, kind, id);
  if (data.isPending) return <Loading />;
  if (!data.data?.length) return <Empty>No app keeps data on this {kind}.</Empty>;
  return (
    <ul className="app-data">
      {data.data.map((a) => (
        <li key={a.app.clientId}>
          <p className="app-data-name">
            <span className="strong">{a.app.name}</span>{" "}
            {a.app.installed ? null : <Badge value="inactive" label="Not installed" />}
          </p>
          <dl className="pairs">
            {Object.entries(a.metadata).map(([key, value]) => (
              <div key={key}>
                <dt className="mono">{key}</dt>
                <dd className="mono">{value}</dd>
              </div>
            ))}
          </dl>
        </li>
      ))}
    </ul>
  );
}

export function AppDataPanel(props: { slug: string; kind: Kind; id: string }) {
  return (
    <Panel title="App data">
      <p className="muted small">
        Apps keep their own references here (an ERP id, a shipment id). Each app sees only its own.
      </p>
      <AppDataList {...props} />
    </Panel>
  );
}
