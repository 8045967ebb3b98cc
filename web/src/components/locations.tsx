import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { Location } from "../api/types.ts";
import { LocationName, MAX_LOCATIONS } from "../contract.ts";
import { useIdempotencyKey } from "../lib/hooks.ts";
import { validate } from "../lib/validate.ts";
import { Table } from "./list.tsx";
import {
  Badge,
  Empty,
  FormActions,
  FormAlert,
  Loading,
  Panel,
  TextField,
  useNotify,
  useSubmit,
} from "./ui.tsx";

/**
 * The store's locations (issue 30): where stock is kept. Listed, added, renamed, deactivated (an
 * inactive location keeps its history but takes no orders) and activated again.
 */
export function LocationsPanel({ slug }: { slug: string }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [renaming, setRenaming] = useState<string | null>(null);
  const locations = useQuery({
    queryKey: ["locations", slug],
    queryFn: async () =>
      (
        await unwrap<Location[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path: { slug } } }),
        )
      ).data,
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ["locations", slug] });
    await queryClient.invalidateQueries({ queryKey: ["inventory-levels", slug] });
  };

  async function setActive(l: Location, active: boolean) {
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/locations/{id}", {
          params: { path: { slug, id: l.id } },
          body: { isActive: active },
        }),
      );
      notify(active ? `${l.name} is active again` : `${l.name} deactivated`);
      await refresh();
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Changing the location failed.", "error");
    }
  }

  const list = locations.data ?? [];
  return (
    <Panel title="Locations">
      <p className="muted">
        Where you keep stock: each variant has a quantity at each location. An inactive location keeps its
        history but takes no orders.
      </p>
      {locations.isPending ? (
        <Loading what="Loading the locations" />
      ) : list.length === 0 ? (
        <Empty>No locations yet.</Empty>
      ) : (
        <Table headers={["Location", "Status", "Online orders", "Actions"]} caption="Locations">
          {list.map((l) => (
            <tr key={l.id}>
              <td data-label="Location" className="strong user-text">
                {renaming === l.id ? (
                  <RenameLocation
                    slug={slug}
                    location={l}
                    onDone={async (saved) => {
                      setRenaming(null);
                      if (saved) await refresh();
                    }}
                  />
                ) : (
                  l.name
                )}
              </td>
              <td data-label="Status">
                <Badge
                  value={l.isActive ? "enabled" : "inactive"}
                  label={l.isActive ? "Active" : "Inactive"}
                />
              </td>
              <td data-label="Online orders">{l.fulfilsOnlineOrders ? "Fulfils them" : "No"}</td>
              <td className="cell-actions">
                {renaming === l.id ? null : (
                  <button type="button" className="secondary" onClick={() => setRenaming(l.id)}>
                    Rename<span className="visually-hidden"> {l.name}</span>
                  </button>
                )}
                <button type="button" className="secondary" onClick={() => setActive(l, !l.isActive)}>
                  {l.isActive ? "Deactivate" : "Activate"}
                  <span className="visually-hidden"> {l.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {list.length < MAX_LOCATIONS ? <AddLocation slug={slug} onSaved={refresh} /> : null}
    </Panel>
  );
}

function RenameLocation(props: { slug: string; location: Location; onDone: (saved: boolean) => void }) {
  const [name, setName] = useState(props.location.name);
  const notify = useNotify();
  const { errors, busy, handle } = useSubmit({ failure: "Renaming failed." });
  const submit = handle(
    () => validate([["name", LocationName, name.trim()]]),
    async () => {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/locations/{id}", {
          params: { path: { slug: props.slug, id: props.location.id } },
          body: { name: name.trim() },
        }),
      );
      notify("Location renamed");
      props.onDone(true);
    },
  );
  return (
    <form className="form" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label={`New name of ${props.location.name}`}
        value={name}
        onChange={setName}
        error={errors.of("name")}
      />
      <FormActions busy={busy} label="Save name" onCancel={() => props.onDone(false)} />
    </form>
  );
}

function AddLocation(props: { slug: string; onSaved: () => Promise<void> }) {
  const [name, setName] = useState("");
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Adding the location failed.", answered });
  const submit = handle(
    () => validate([["name", LocationName, name.trim()]]),
    async () => {
      await unwrap(
        api.POST("/api/v1/dashboard/stores/{slug}/locations", {
          params: { path: { slug: props.slug } },
          body: { name: name.trim() },
          headers: { "idempotency-key": key },
        }),
      );
      notify(`${name.trim()} added`);
      setName("");
      await props.onSaved();
    },
  );
  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="Location name"
        value={name}
        onChange={setName}
        error={errors.of("name")}
        placeholder="New Jersey warehouse"
      />
      <FormActions busy={busy} label="Add location" />
    </form>
  );
}
