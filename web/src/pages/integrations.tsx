import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { ApiKey, Installation, NewApiKey } from "../api/types.ts";
import { KeyApiVersion } from "../components/api-versions.tsx";
import { Table } from "../components/list.tsx";
import { ScopeChecks, ScopeList } from "../components/scopes.tsx";
import {
  Badge,
  CopyBox,
  Empty,
  FormActions,
  FormAlert,
  Loading,
  PageHeader,
  Panel,
  SecretPanel,
  TextField,
  useConfirm,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import { isDateTime, KEY_SCOPE_NAMES, KeyName, type KeyScope, KeyScopeSchema, Scope } from "../contract.ts";
import { when } from "../lib/format.ts";
import { useIdempotencyKey, useSlug } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

export function InstalledAppsPage() {
  const slug = useSlug();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const installed = useQuery({
    queryKey: ["installations", slug],
    queryFn: async () =>
      (
        await unwrap<Installation[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/installations", { params: { path: { slug } } }),
        )
      ).data,
  });

  async function uninstall(i: Installation) {
    const ok = await confirm({
      title: `Uninstall ${i.appName}?`,
      message:
        "Its access ends at once (every token is revoked); it receives app/uninstalled, then nothing more from this store.",
      confirmLabel: "Uninstall",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
          params: { path: { slug, clientId: i.clientId } },
        }),
      );
      notify(`${i.appName} uninstalled`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Uninstalling failed.", "error");
    }
    await queryClient.invalidateQueries({ queryKey: ["installations", slug] });
  }

  return (
    <>
      <PageHeader title="Installed apps" subtitle="Apps you approved for this store, and what each may do." />
      <Panel label="Installed apps">
        {installed.isPending ? (
          <Loading />
        ) : installed.data?.length ? (
          <Table headers={["App", "Access", "Installed", "Actions"]}>
            {installed.data.map((i) => (
              <tr key={i.clientId}>
                <td data-label="App" className="strong user-text">
                  {i.appName}
                </td>
                <td data-label="Access">
                  <ScopeList scopes={i.scopes} />
                </td>
                <td data-label="Installed" className="small">
                  {when(i.installedAt)}
                </td>
                <td className="cell-actions">
                  <button type="button" className="danger" onClick={() => uninstall(i)}>
                    Uninstall
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>
            No app is installed. Find one in the{" "}
            <Link to={`/stores/${slug}/app-directory`}>app directory</Link>.
          </Empty>
        )}
      </Panel>
    </>
  );
}

export function ApiKeysPage() {
  const slug = useSlug();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const keys = useQuery({
    queryKey: ["api-keys", slug],
    queryFn: async () =>
      (
        await unwrap<ApiKey[]>(
          api.GET("/api/v1/dashboard/stores/{slug}/api-keys", { params: { path: { slug } } }),
        )
      ).data,
  });

  async function revoke(k: ApiKey) {
    const ok = await confirm({
      title: `Revoke ${k.name}?`,
      message: "Requests with this key pair are refused from now on. This cannot be undone.",
      confirmLabel: "Revoke key",
    });
    if (!ok) return;
    try {
      await unwrap(
        api.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug, keyId: k.keyId } },
        }),
      );
      notify(`${k.name} revoked`);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Revoking failed.", "error");
    }
    await queryClient.invalidateQueries({ queryKey: ["api-keys", slug] });
  }

  return (
    <>
      <PageHeader
        title="API keys"
        subtitle="Key pairs for your own integrations with the developer API (x-api-key and x-api-secret)."
      />
      {created ? (
        <SecretPanel
          label="New key pair"
          title="Your new key pair"
          warning="This is the only time the secret is shown: copy it now and keep it somewhere safe. We keep only its hash."
          onDone={() => setCreated(null)}
        >
          <CopyBox label="Key id (x-api-key)" value={created.keyId} />
          <CopyBox label="Secret (x-api-secret)" value={created.secret} />
        </SecretPanel>
      ) : null}
      <Panel label="Key pairs">
        {keys.isPending ? (
          <Loading />
        ) : keys.data?.length ? (
          <Table headers={["Name", "Key id", "Scopes", "API version", "Last used", "Status", "Actions"]}>
            {keys.data.map((k) => {
              const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
              const state = k.revokedAt ? "revoked" : expired ? "expired" : "usable";
              return (
                <tr key={k.keyId}>
                  <td data-label="Name" className="strong user-text">
                    {k.name}
                  </td>
                  <td data-label="Key id" className="mono">
                    {k.keyId}
                  </td>
                  <td data-label="Scopes">
                    <ScopeList scopes={k.scopes} codes />
                  </td>
                  <td data-label="API version">
                    <KeyApiVersion
                      slug={slug}
                      apiKey={k}
                      onChanged={() => queryClient.invalidateQueries({ queryKey: ["api-keys", slug] })}
                    />
                  </td>
                  <td data-label="Last used" className="small">
                    {when(k.lastUsedAt)}
                  </td>
                  <td data-label="Status">
                    <Badge value={state === "usable" ? "succeeded" : state} label={state} />
                  </td>
                  <td className="cell-actions">
                    {state === "revoked" ? null : (
                      <button type="button" className="danger" onClick={() => revoke(k)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        ) : (
          <Empty>No key pairs yet.</Empty>
        )}
      </Panel>
      <Panel title="Create a key pair">
        <ApiKeyForm
          slug={slug}
          onCreated={async (k) => {
            setCreated(k);
            await queryClient.invalidateQueries({ queryKey: ["api-keys", slug] });
          }}
        />
      </Panel>
    </>
  );
}

function ApiKeyForm({ slug, onCreated }: { slug: string; onCreated: (k: NewApiKey) => unknown }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<KeyScope[]>([]);
  const [expires, setExpires] = useState("");
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({ failure: "Creating the key pair failed.", answered });
  // The picker's local time as the API's UTC date-time; null when it names no instant the API takes.
  const expiresAt = () => {
    const at = new Date(expires);
    return Number.isNaN(at.getTime()) || !isDateTime(at.toISOString()) ? null : at.toISOString();
  };
  const submit = handle(
    () => {
      const invalid = validate([["name", KeyName, name.trim()]]);
      if (expires && !expiresAt())
        invalid.push({ field: "expiresAt", message: "must be a date and time in the years 1 to 9999" });
      if (scopes.length === 0) invalid.push({ field: "scopes", message: "Pick at least one scope" });
      for (const s of scopes) invalid.push(...validate([["scopes", KeyScopeSchema, s]]));
      return {
        message: invalid.find((i) => i.field === "scopes")?.message ?? "Check the highlighted fields.",
        fields: invalid,
      };
    },
    async () => {
      const { data } = await unwrap<NewApiKey>(
        api.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug } },
          body: {
            name: name.trim(),
            scopes,
            ...(expires ? { expiresAt: expiresAt()! } : {}),
          },
          headers: { "idempotency-key": key },
        }),
      );
      setName("");
      setScopes([]);
      setExpires("");
      await onCreated(data);
    },
  );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="Key name"
        value={name}
        onChange={setName}
        hint="What it is for, e.g. Nightly catalogue export."
        error={errors.of("name")}
      />
      <TextField
        label="Expires"
        type="datetime-local"
        value={expires}
        onChange={setExpires}
        hint="Optional."
        error={errors.of("expiresAt")}
      />
      <ScopeChecks
        legend="Scopes"
        hint="Grant the minimum the integration needs: a catalogue export needs only Read products."
        scopes={KEY_SCOPE_NAMES}
        checked={scopes}
        onChange={(next) => setScopes(next as KeyScope[])}
        error={errors.of("scopes")}
      />
      <FormActions busy={busy} label="Create key pair" busyLabel="Creating…" />
    </form>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/apps",
    element: <InstalledAppsPage />,
    storeMenu: { label: "Installed apps", order: 50, scope: Scope.manage_installations },
  }),
  definePage({
    path: "/stores/:slug/api-keys",
    element: <ApiKeysPage />,
    storeMenu: { label: "API keys", order: 60, scope: Scope.manage_api_keys },
  }),
];
