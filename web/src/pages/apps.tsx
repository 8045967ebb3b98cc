import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ApiError, api, NO_BODY, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import { useStores } from "../api/session.ts";
import type {
  AppInfo,
  AppSubscription,
  ChangedApp,
  Delivery,
  ListenSession,
  NewApp,
  NewPrivacySecret,
  NewSecret,
  StreamedEvent,
  WebhookEnabled,
  WebhookRecovery,
} from "../api/types.ts";
import { AppApiVersion, useApiVersions, VersionLabel } from "../components/api-versions.tsx";
import { ListingPanel } from "../components/app-listing.tsx";
import { CursorTable, LoadMore, Table } from "../components/list.tsx";
import { ScopeChecks, ScopeList } from "../components/scopes.tsx";
import {
  Badge,
  CopyBox,
  Empty,
  Field,
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
import {
  AppName,
  DELIVERY_STATUS_NAMES,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  EVENT_NAMES,
  type EventName,
  LISTEN_SESSION_STATES,
  PAGE_SIZE,
  RedirectUri,
  SCOPE_NAMES,
  type Scope,
  SubscriptionStatus,
  WEBHOOK_CHANNELS,
  WebhookChannel,
  WebhookTargetUrl,
} from "../contract.ts";
import { when } from "../lib/format.ts";
import { useIdempotencyKey } from "../lib/hooks.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

export function AppsPage() {
  const [created, setCreated] = useState<NewApp | null>(null);
  const queryClient = useQueryClient();
  const apps = useQuery({
    queryKey: ["apps"],
    queryFn: async () => (await unwrap<AppInfo[]>(api.GET("/api/v1/dashboard/apps"))).data,
  });
  return (
    <>
      <PageHeader
        title="My apps"
        subtitle="Apps you build for merchants: their credentials, settings and webhook deliveries."
      />
      {created ? (
        <SecretPanel
          label="New app credentials"
          title={`${created.name} is registered`}
          warning="This is the only time the client secret is shown: copy it now and keep it somewhere safe. We keep only its hash."
          onDone={() => setCreated(null)}
        >
          <CopyBox label="Client id" value={created.clientId} />
          <CopyBox label="Client secret" value={created.clientSecret} />
          {created.privacySecret ? (
            <CopyBox label="Privacy endpoint secret" value={created.privacySecret} />
          ) : null}
        </SecretPanel>
      ) : null}
      <Panel label="Apps">
        {apps.isPending ? (
          <Loading />
        ) : apps.data?.length ? (
          <Table headers={["App", "Client id", "Scopes", "Created", "Actions"]}>
            {apps.data.map((a) => (
              <tr key={a.clientId}>
                <td data-label="App" className="strong user-text">
                  <Link to={`/apps/${a.clientId}`}>{a.name}</Link>
                </td>
                <td data-label="Client id" className="mono">
                  {a.clientId}
                </td>
                <td data-label="Scopes">
                  <ScopeList scopes={a.scopes} codes />
                </td>
                <td data-label="Created" className="small">
                  {when(a.createdAt)}
                </td>
                <td className="cell-actions">
                  <Link className="button-link" to={`/apps/${a.clientId}`}>
                    Open
                  </Link>
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>No apps yet. Register one below to get a client id and secret.</Empty>
        )}
      </Panel>
      <Panel title="Register an app">
        <AppForm
          onSaved={async (app) => {
            setCreated(app as NewApp);
            await queryClient.invalidateQueries({ queryKey: ["apps"] });
          }}
        />
      </Panel>
    </>
  );
}

/** Register (no `app`) or edit an app: name, redirect URIs (one a line), scopes, privacy endpoint. */
function AppForm(props: {
  app?: AppInfo;
  onSaved: (app: ChangedApp | NewApp) => unknown;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(props.app?.name ?? "");
  const [privacyUrl, setPrivacyUrl] = useState(props.app?.privacyWebhookUrl ?? "");
  const [uris, setUris] = useState(props.app?.redirectUris.join("\n") ?? "");
  const [scopes, setScopes] = useState<Scope[]>(props.app?.scopes ?? []);
  const notify = useNotify();
  const [key, answered] = useIdempotencyKey();
  const { errors, busy, handle } = useSubmit({
    failure: "Saving failed.",
    answered: props.app ? undefined : answered,
  });
  const redirectUris = uris
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean);
  const privacyWebhookUrl = privacyUrl.trim();
  const body = { name: name.trim(), redirectUris, scopes };
  const submit = handle(
    () => {
      const invalid = validate([
        ["name", AppName, body.name],
        ...redirectUris.map((u) => ["redirectUris", RedirectUri, u] as const),
        ...(privacyWebhookUrl ? [["privacyWebhookUrl", WebhookTargetUrl, privacyWebhookUrl] as const] : []),
      ]);
      if (privacyWebhookUrl && !privacyWebhookUrl.startsWith("https://"))
        invalid.push({ field: "privacyWebhookUrl", message: "must be an https:// address" });
      if (redirectUris.length === 0)
        invalid.push({ field: "redirectUris", message: "add at least one redirect URI" });
      if (scopes.length === 0) invalid.push({ field: "scopes", message: "pick at least one scope" });
      return invalid;
    },
    async () => {
      if (props.app) {
        // The endpoint only when it changed (empty: removed), so an edit never touches it by accident.
        const privacy =
          privacyWebhookUrl === (props.app.privacyWebhookUrl ?? "")
            ? {}
            : { privacyWebhookUrl: privacyWebhookUrl || null };
        const { data } = await unwrap<ChangedApp>(
          api.PATCH("/api/v1/dashboard/apps/{clientId}", {
            params: { path: { clientId: props.app.clientId } },
            body: { ...body, ...privacy },
          }),
        );
        notify("Changes saved");
        await props.onSaved(data);
      } else {
        const { data } = await unwrap<NewApp>(
          api.POST("/api/v1/dashboard/apps", {
            body: { ...body, ...(privacyWebhookUrl ? { privacyWebhookUrl } : {}) },
            headers: { "idempotency-key": key },
          }),
        );
        setName("");
        setUris("");
        setScopes([]);
        setPrivacyUrl("");
        await props.onSaved(data);
      }
    },
  );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="App name"
        value={name}
        onChange={setName}
        hint="Merchants see it on the consent page."
        error={errors.of("name")}
      />
      <Field
        label="Redirect URIs"
        hint="One per line, https:// and without a #fragment; plain http:// is accepted only on localhost, 127.0.0.1 and [::1], for development. The code goes back to one of these."
        error={errors.of("redirectUris")}
        className="wide"
      >
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={2}
            className="mono"
            value={uris}
            onChange={(e) => setUris(e.target.value)}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
          />
        )}
      </Field>
      <ScopeChecks
        legend="Scopes the app may ask for"
        hint="Ask for the least you need; merchants see each in plain words."
        scopes={SCOPE_NAMES}
        checked={scopes}
        onChange={setScopes}
        error={errors.of("scopes")}
      />
      <TextField
        label="Privacy webhook URL"
        value={privacyUrl}
        onChange={setPrivacyUrl}
        hint="Where customer.redact, customer.data_request and shop.redact are sent, from every store (https). Every app should have one; its signing secret is shown once."
        error={errors.of("privacyWebhookUrl")}
        className="wide"
      />
      <FormActions
        busy={busy}
        label={props.app ? "Save changes" : "Register app"}
        onCancel={props.onCancel}
      />
    </form>
  );
}

export function AppDetailPage() {
  const { clientId = "" } = useParams();
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<NewSecret | null>(null);
  const [privacySecret, setPrivacySecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const navigate = useNavigate();
  const app = useQuery({
    queryKey: ["app", clientId],
    queryFn: async () =>
      (
        await unwrap<AppInfo>(
          api.GET("/api/v1/dashboard/apps/{clientId}", { params: { path: { clientId } } }),
        )
      ).data,
  });
  if (app.isPending) return <Loading what="Loading the app" />;
  if (!app.data) {
    return (
      <>
        <PageHeader title="App not found" />
        <Link to="/apps">Back to my apps</Link>
      </>
    );
  }
  const a = app.data;

  async function rotate() {
    const ok = await confirm({
      title: "Rotate the client secret?",
      message: "The current secret is refused from the next request on. Tokens already issued keep working.",
      confirmLabel: "Rotate secret",
    });
    if (!ok) return;
    try {
      const { data } = await unwrap<NewSecret>(
        api.POST("/api/v1/dashboard/apps/{clientId}/secret", {
          params: { path: { clientId } },
          body: NO_BODY,
        }),
      );
      setSecret(data);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Rotating failed.", "error");
    }
  }

  async function rotatePrivacy() {
    const ok = await confirm({
      title: "Rotate the privacy endpoint's secret?",
      message:
        "Deliveries are signed with the new secret from now on; for a day their webhook-signature carries the old secret's signature too.",
      confirmLabel: "Rotate privacy secret",
    });
    if (!ok) return;
    try {
      const { data } = await unwrap<NewPrivacySecret>(
        api.POST("/api/v1/dashboard/apps/{clientId}/privacy-secret", {
          params: { path: { clientId } },
          body: NO_BODY,
        }),
      );
      setPrivacySecret(data.privacySecret);
      await queryClient.invalidateQueries({ queryKey: ["app", clientId] });
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Rotating failed.", "error");
    }
  }

  async function remove() {
    const ok = await confirm({
      title: `Delete ${a.name}?`,
      message:
        "It is uninstalled from every store that has it: each merchant's store sends it app/uninstalled and revokes its tokens. Its client id stops working. This cannot be undone.",
      confirmLabel: "Delete app",
    });
    if (!ok) return;
    try {
      const { data } = await unwrap<{ uninstalledFrom: number }>(
        api.DELETE("/api/v1/dashboard/apps/{clientId}", { params: { path: { clientId } } }),
      );
      notify(`${a.name} deleted; uninstalled from ${data.uninstalledFrom} store(s)`);
      await queryClient.invalidateQueries({ queryKey: ["apps"] });
      navigate("/apps");
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Deleting failed.", "error");
    }
  }

  return (
    <>
      <PageHeader
        title={a.name}
        subtitle={<span className="mono">{a.clientId}</span>}
        actions={
          <>
            <button type="button" className="secondary" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" className="secondary" onClick={rotate}>
              Rotate secret
            </button>
            <button type="button" className="danger" onClick={remove}>
              Delete app
            </button>
          </>
        }
      />
      {a.privacyWebhookUrl === null ? (
        <section className="panel secret-panel" aria-label="No privacy endpoint">
          <h2>No privacy endpoint</h2>
          <p className="warning">
            This app declares no privacy webhook URL, so it is sent no customer.redact, customer.data_request
            or shop.redact: merchants cannot reach it when a customer asks to be erased or to see their data.
            Edit the app to add one.
          </p>
        </section>
      ) : null}
      <DisabledWebhooks clientId={clientId} />
      {privacySecret ? (
        <SecretPanel
          label="Privacy endpoint secret"
          title="Privacy endpoint secret"
          warning="This is the only time it is shown: your privacy endpoint verifies deliveries with it."
          onDone={() => setPrivacySecret(null)}
        >
          <CopyBox label="Privacy endpoint secret" value={privacySecret} />
        </SecretPanel>
      ) : null}
      {secret ? (
        <SecretPanel
          label="New client secret"
          title="New client secret"
          warning="This is the only time it is shown: copy it now. The old secret no longer works."
          onDone={() => setSecret(null)}
        >
          <CopyBox label="Client secret" value={secret.clientSecret} />
        </SecretPanel>
      ) : null}
      {editing ? (
        <Panel title="Edit app">
          <AppForm
            app={a}
            onSaved={async (changed) => {
              if (changed.privacySecret) setPrivacySecret(changed.privacySecret);
              setEditing(false);
              await queryClient.invalidateQueries({ queryKey: ["app", clientId] });
              await queryClient.invalidateQueries({ queryKey: ["apps"] });
            }}
            onCancel={() => setEditing(false)}
          />
        </Panel>
      ) : (
        <Panel title="Settings">
          <dl className="details">
            <dt>Redirect URIs</dt>
            <dd className="mono">
              {a.redirectUris.map((u) => (
                <div key={u}>{u}</div>
              ))}
            </dd>
            <dt>Scopes</dt>
            <dd>
              <ScopeList scopes={a.scopes} codes />
            </dd>
            <dt>Registered</dt>
            <dd>{when(a.createdAt)}</dd>
            <dt>Secret rotated</dt>
            <dd>{when(a.secretRotatedAt)}</dd>
            <dt>Privacy webhook URL</dt>
            <dd className="mono">{a.privacyWebhookUrl ?? <span className="muted">None</span>}</dd>
            {a.privacyWebhookUrl ? (
              <>
                <dt>Privacy secret rotated</dt>
                <dd>
                  {a.privacySecretRotatedAt ? when(a.privacySecretRotatedAt) : "Never"}{" "}
                  <button type="button" className="secondary small" onClick={rotatePrivacy}>
                    Rotate privacy secret
                  </button>
                </dd>
              </>
            ) : null}
          </dl>
        </Panel>
      )}
      <AppApiVersion app={a} />
      <ListingPanel app={a} />
      <InstallLink app={a} />
      <Subscriptions clientId={clientId} />
      <Deliveries clientId={clientId} />
      <ListenSessions clientId={clientId} />
    </>
  );
}

/** A ready authorize link for one of the developer's stores (to test the install flow). */
function InstallLink({ app }: { app: AppInfo }) {
  const stores = useStores().data ?? [];
  const [store, setStore] = useState("");
  const [redirect, setRedirect] = useState(app.redirectUris[0] ?? "");
  const params = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: redirect,
    scope: app.scopes.join(" "),
    state: "test",
    ...(store ? { store } : {}),
  });
  const link = `${location.origin}/api/v1/apps/authorize?${params}`;
  return (
    <Panel title="Install link">
      <p className="muted">
        The link your app sends merchants to. In production your app adds its own <code>state</code> (and
        PKCE).
      </p>
      <div className="form grid">
        <Field label="Store to preselect">
          {({ id }) => (
            <select id={id} value={store} onChange={(e) => setStore(e.target.value)}>
              <option value="">Let the merchant choose</option>
              {stores.map((s) => (
                <option key={s.slug} value={s.slug}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Redirect URI">
          {({ id }) => (
            <select id={id} value={redirect} onChange={(e) => setRedirect(e.target.value)}>
              {app.redirectUris.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <CopyBox label="Install link" value={link} />
    </Panel>
  );
}

/** The app's webhook subscriptions in every store, with when each signing secret was last rotated. */
function Subscriptions({ clientId }: { clientId: string }) {
  const versions = useApiVersions();
  const list = useCursorList<AppSubscription>(["app-webhooks", clientId], (cursor) =>
    unwrap<AppSubscription[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
        params: { path: { clientId }, query: { limit: PAGE_SIZE.dashboard, cursor } },
      }),
    ),
  );
  return (
    <Panel title="Webhook subscriptions">
      <p className="muted">
        Each subscription's webhooks are written at its own API version (change it with{" "}
        <code>PATCH /api/v1/apps/api/webhooks/&#123;id&#125;</code>). Your app rotates a subscription's
        signing secret with <code>POST /api/v1/apps/api/webhooks/&#123;id&#125;/secret</code> (or{" "}
        <code>merchant-platform rotate-secret &lt;id&gt;</code>); for a while after, deliveries are signed
        with the old and the new secret (a day by default).
      </p>
      <CursorTable
        list={list}
        noun="subscriptions"
        empty="No subscriptions yet: your app subscribes with the Admin API."
        headers={[
          "Event",
          "Store",
          "Target",
          "Filter and fields",
          "API version",
          "Subscribed",
          "Secret rotated",
        ]}
      >
        {(s) => (
          <tr key={s.id}>
            <td data-label="Event" className="mono">
              {s.eventName}
            </td>
            <td data-label="Store" className="mono">
              {s.storeSlug}
            </td>
            <td data-label="Target" className="mono clamp" title={s.targetUrl}>
              {s.targetUrl}
            </td>
            <td data-label="Filter and fields" className="small user-text">
              {s.filter === null ? (
                "Every event"
              ) : (
                <code className="clamp" title={s.filter}>
                  {s.filter}
                </code>
              )}
              <br />
              {s.fields === null ? "All fields" : `Fields: ${s.fields.join(", ")} (and id)`}
            </td>
            <td data-label="API version">
              <VersionLabel version={s.apiVersion} versions={versions.data} />
            </td>
            <td data-label="Subscribed" className="small">
              {when(s.createdAt)}
            </td>
            <td data-label="Secret rotated" className="small">
              {s.secretRotatedAt ? when(s.secretRotatedAt) : "Never"}
            </td>
          </tr>
        )}
      </CursorTable>
    </Panel>
  );
}

/**
 * The banner of the app's page: each subscription the platform disabled (its deliveries all failed
 * for the disable window, or its receiver answered 410 Gone), with what `webhook.disabled` says,
 * and Re-enable (by default also sending what failed and what it missed since it began failing).
 */
function DisabledWebhooks({ clientId }: { clientId: string }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [recover, setRecover] = useState(true);
  const [busy, setBusy] = useState<string | null>(null);
  const disabled = useQuery({
    queryKey: ["app-webhooks", clientId, SubscriptionStatus.disabled],
    queryFn: async () =>
      (
        await unwrap<AppSubscription[]>(
          api.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
            params: { path: { clientId }, query: { status: SubscriptionStatus.disabled, limit: 100 } },
          }),
        )
      ).data,
  });
  if (!disabled.data?.length) return null;

  async function enable(w: AppSubscription) {
    // From the first failure of the run that disabled it: what failed, then what it missed.
    const from = w.failingSince ?? w.disabledAt;
    setBusy(w.id);
    try {
      const { data } = await unwrap<WebhookEnabled>(
        api.POST("/api/v1/dashboard/apps/{clientId}/webhooks/{id}/enable", {
          params: { path: { clientId, id: w.id } },
          body: recover && from ? { recoverSince: from } : {},
        }),
      );
      notify(
        recover
          ? `Re-enabled; ${data.queued} deliver${data.queued === 1 ? "y" : "ies"} queued again`
          : "Re-enabled",
      );
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Re-enabling failed.", "error");
    }
    setBusy(null);
    await queryClient.invalidateQueries({ queryKey: ["app-webhooks", clientId] });
    await queryClient.invalidateQueries({ queryKey: ["deliveries", clientId] });
  }

  return (
    <section className="panel secret-panel" aria-label="Disabled webhook subscriptions">
      <h2>
        {disabled.data.length === 1
          ? "A webhook subscription is disabled"
          : `${disabled.data.length} webhook subscriptions are disabled`}
      </h2>
      <p className="warning">
        Nothing is sent to a disabled subscription. Each event it would have received is kept as a skipped
        delivery; re-enable it once the endpoint answers again.
      </p>
      <ul className="disabled-webhooks">
        {disabled.data.map((w) => (
          <li key={w.id}>
            <p>
              <span className="mono">{w.eventName}</span> → <span className="mono">{w.targetUrl}</span> in{" "}
              <span className="mono">{w.storeSlug}</span>
            </p>
            <p className="small">
              Disabled {when(w.disabledAt)}: {w.disabledReason ?? "—"}
              {w.failingSince ? ` (failing since ${when(w.failingSince)})` : ""}{" "}
              <span className="mono">({w.id})</span>
            </p>
            <button type="button" disabled={busy === w.id} onClick={() => enable(w)}>
              {busy === w.id ? "Re-enabling…" : "Re-enable"}
            </button>
          </li>
        ))}
      </ul>
      <label className="check">
        <input type="checkbox" checked={recover} onChange={(e) => setRecover(e.target.checked)} /> Also send
        again what failed since it began failing, and the events it missed while disabled
      </label>
    </section>
  );
}

/** A `datetime-local` value (the browser's time zone) for an instant. */
function localInput(at: Date): string {
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** "Recover failed since …": every failed or skipped delivery of the app since then, sent once more. */
function RecoverFailed({ clientId }: { clientId: string }) {
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3600_000)));
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();
  const notify = useNotify();
  async function recover(event: FormEvent) {
    event.preventDefault();
    const at = new Date(since);
    if (Number.isNaN(at.getTime())) {
      notify("Choose a date and time.", "error");
      return;
    }
    setBusy(true);
    try {
      const { data } = await unwrap<WebhookRecovery>(
        api.POST("/api/v1/dashboard/apps/{clientId}/webhooks/recover", {
          params: { path: { clientId } },
          body: { since: at.toISOString() },
        }),
      );
      notify(
        data.queued === 0
          ? "Nothing failed since then."
          : `${data.queued} failed deliver${data.queued === 1 ? "y" : "ies"} queued again`,
      );
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Recovering failed.", "error");
    }
    setBusy(false);
    await queryClient.invalidateQueries({ queryKey: ["deliveries", clientId] });
  }
  return (
    <form className="list-tools recover-form" onSubmit={recover} aria-label="Recover failed deliveries">
      <div className="field">
        <label htmlFor="recover-since">Recover failed since</label>
        <input
          id="recover-since"
          type="datetime-local"
          value={since}
          required
          onChange={(e) => setSince(e.target.value)}
        />
      </div>
      <button type="submit" className="secondary" disabled={busy}>
        {busy ? "Recovering…" : "Recover failed since"}
      </button>
      <p className="small muted grow">
        Sends each delivery that failed (or was skipped while its subscription was disabled) once more, with
        its original <code>x-webhook-id</code>. Deliveries that succeeded are not sent again.
      </p>
    </form>
  );
}

function Deliveries({ clientId }: { clientId: string }) {
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [event, setEvent] = useState<EventName | "">("");
  const [open, setOpen] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const list = useCursorList<Delivery>(["deliveries", clientId, status, event], (cursor) =>
    unwrap<Delivery[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
        params: {
          path: { clientId },
          query: {
            limit: PAGE_SIZE.dashboard,
            cursor,
            status: status || undefined,
            event: event || undefined,
          },
        },
      }),
    ),
  );

  async function redeliver(d: Delivery) {
    try {
      await unwrap(
        api.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
          params: { path: { clientId, id: d.id } },
          body: NO_BODY,
        }),
      );
      notify("Queued again");
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Redelivery failed.", "error");
    }
    await queryClient.invalidateQueries({ queryKey: ["deliveries", clientId] });
  }

  return (
    <Panel title="Webhook deliveries">
      <RecoverFailed clientId={clientId} />
      <div className="list-tools">
        <div className="field">
          <label htmlFor="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as DeliveryStatus | "")}
          >
            <option value="">Any status</option>
            {DELIVERY_STATUS_NAMES.map((s) => (
              <option key={s} value={s}>
                {DELIVERY_STATUSES[s].label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="delivery-event">Event</label>
          <select
            id="delivery-event"
            value={event}
            onChange={(e) => setEvent(e.target.value as EventName | "")}
          >
            <option value="">Any event</option>
            {EVENT_NAMES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      <CursorTable
        list={list}
        noun="deliveries"
        empty={status || event ? "No deliveries match." : "No deliveries yet."}
        headers={[
          "Event",
          "Store",
          "Target",
          "Status",
          { label: "Attempts", num: true },
          "Next attempt",
          "Actions",
        ]}
      >
        {(d) => (
          <DeliveryRow
            key={d.id}
            d={d}
            open={open === d.id}
            onToggle={() => setOpen(open === d.id ? null : d.id)}
            onRedeliver={() => redeliver(d)}
          />
        )}
      </CursorTable>
    </Panel>
  );
}

function DeliveryRow(props: { d: Delivery; open: boolean; onToggle: () => void; onRedeliver: () => void }) {
  const { d } = props;
  return (
    <>
      <tr>
        <td data-label="Event" className="mono">
          {d.eventName}
        </td>
        <td data-label="Store" className="mono">
          {d.storeSlug}
        </td>
        <td data-label="Target" className="mono clamp" title={d.targetUrl}>
          {d.targetUrl}
        </td>
        <td data-label="Status">
          <Badge value={d.status} label={DELIVERY_STATUSES[d.status].label} />
        </td>
        <td data-label="Attempts" className="num">
          {d.attempts}
        </td>
        <td data-label="Next attempt" className="small">
          {d.nextAttemptAt ? when(d.nextAttemptAt) : "—"}
        </td>
        <td className="cell-actions">
          <button type="button" className="secondary" aria-expanded={props.open} onClick={props.onToggle}>
            {props.open ? "Hide attempts" : "Attempts"}
          </button>
          {d.subscriptionActive ? (
            <button type="button" className="secondary" onClick={props.onRedeliver}>
              Redeliver
            </button>
          ) : null}
        </td>
      </tr>
      {props.open ? (
        <tr className="attempts-row">
          <td colSpan={7} className="attempts-cell">
            {d.attemptLog.length === 0 ? (
              <p className="muted">No attempt yet.</p>
            ) : (
              <ol className="attempts">
                {d.attemptLog.map((a) => (
                  <li key={a.attempt}>
                    <p>
                      <span className="strong">Attempt {a.attempt}</span> · {when(a.startedAt)} ·{" "}
                      {a.durationMs} ms · {a.statusCode ? `HTTP ${a.statusCode}` : (a.error ?? "no answer")}
                    </p>
                    {a.responseBody ? <pre className="response">{a.responseBody.slice(0, 500)}</pre> : null}
                  </li>
                ))}
              </ol>
            )}
          </td>
        </tr>
      ) : null}
    </>
  );
}

/**
 * What the app's `listen` sessions streamed to developers' machines: not deliveries (no status,
 * no retries), so a list of its own, marked as such.
 */
function ListenSessions({ clientId }: { clientId: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const list = useCursorList<ListenSession>(["listen-sessions", clientId], (cursor) =>
    unwrap<ListenSession[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/apps/{clientId}/listen-sessions", {
        params: { path: { clientId }, query: { limit: PAGE_SIZE.dashboard, cursor } },
      }),
    ),
  );
  return (
    <Panel title="Listen sessions">
      <p className="muted">
        Events streamed to <code>merchant-platform listen</code>, which forwards each to the developer's local
        URL and shows what it answered there. The platform sees the stream, not that answer.
      </p>
      <CursorTable
        list={list}
        noun="listen sessions"
        empty="No listen sessions yet."
        headers={[
          "Session",
          "Store",
          "State",
          "Started",
          "Last seen",
          { label: "Streamed", num: true },
          "Actions",
        ]}
      >
        {(s) => (
          <ListenSessionRow
            key={s.id}
            clientId={clientId}
            session={s}
            open={open === s.id}
            onToggle={() => setOpen(open === s.id ? null : s.id)}
          />
        )}
      </CursorTable>
    </Panel>
  );
}

function ListenSessionRow(props: {
  clientId: string;
  session: ListenSession;
  open: boolean;
  onToggle: () => void;
}) {
  const { session: s } = props;
  return (
    <>
      <tr>
        <td data-label="Session" className="mono">
          {s.id}
        </td>
        <td data-label="Store" className="mono">
          {s.storeSlug}
        </td>
        <td data-label="State">
          <Badge value={s.state} label={LISTEN_SESSION_STATES[s.state].label} />
        </td>
        <td data-label="Started" className="small">
          {when(s.createdAt)}
        </td>
        <td data-label="Last seen" className="small">
          {when(s.endedAt ?? s.lastSeenAt)}
        </td>
        <td data-label="Streamed" className="num">
          {s.moreStreamed ? `${s.streamed.length}+` : s.streamed.length}
        </td>
        <td className="cell-actions">
          <button type="button" className="secondary" aria-expanded={props.open} onClick={props.onToggle}>
            {props.open ? "Hide events" : "Events"}
          </button>
        </td>
      </tr>
      {props.open ? (
        <tr className="attempts-row">
          <td colSpan={7} className="attempts-cell">
            <StreamedEvents clientId={props.clientId} session={s} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

/** Every event one session streamed, newest first, a page at a time (the first page is the session's own). */
function StreamedEvents({ clientId, session }: { clientId: string; session: ListenSession }) {
  const list = useCursorList<StreamedEvent>(["listen-session-events", clientId, session.id], (cursor) =>
    unwrap<StreamedEvent[], { nextCursor: string | null }>(
      api.GET("/api/v1/dashboard/apps/{clientId}/listen-sessions/{id}/events", {
        params: { path: { clientId, id: session.id }, query: { limit: 50, cursor } },
      }),
    ),
  );
  if (list.isPending) return <Loading what="Loading streamed events" />;
  if (list.items.length === 0)
    return <p className="muted">It streamed nothing (or only events older than the event retention).</p>;
  return (
    <>
      <ol className="attempts">
        {list.items.map((e) => (
          <li key={e.id}>
            <p>
              <span className="strong mono">{e.eventName}</span>
              {e.test ? " (test)" : ""} · {when(e.createdAt)} · <span className="mono">{e.id}</span> ·{" "}
              <Badge value={WebhookChannel.listen} label={`Streamed to ${WEBHOOK_CHANNELS.listen.label}`} />
            </p>
          </li>
        ))}
      </ol>
      <LoadMore
        shown={list.items.length}
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        onMore={() => list.fetchNextPage()}
        noun="streamed events"
      />
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({ path: "/apps", element: <AppsPage /> }),
  definePage({ path: "/apps/:clientId", element: <AppDetailPage /> }),
];
