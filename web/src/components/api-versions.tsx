import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import type { ApiKey, ApiVersion, AppInfo, DeprecatedCall } from "../api/types.ts";
import { API_VERSION_STATUSES, ApiVersionStatus } from "../contract.ts";
import { when } from "../lib/format.ts";
import { Table } from "./list.tsx";
import { Badge, Empty, Loading, Panel, useConfirm, useNotify } from "./ui.tsx";

/** The API's versions (`GET /api/versions`): the same for every page, fetched once. */
export function useApiVersions() {
  return useQuery({
    queryKey: ["api-versions"],
    staleTime: 10 * 60_000,
    queryFn: async () => (await unwrap<ApiVersion[]>(api.GET("/api/versions"))).data,
  });
}

/** A version's status in words, with its sunset when it has one. */
function statusText(v: ApiVersion | undefined): string {
  if (!v) return ApiVersionStatus.retired;
  if (v.status === ApiVersionStatus.deprecated) return `deprecated; retires ${v.sunsetAt}`;
  return v.status;
}

/** A version and its status, as a badge beside its date. */
export function VersionLabel({ version, versions }: { version: string; versions: ApiVersion[] | undefined }) {
  const found = versions?.find((v) => v.version === version);
  // A version the API no longer lists is one it retired (the badge's class is the status).
  const status = found?.status ?? ApiVersionStatus.retired;
  return (
    <span className="version-label">
      <span className="mono">{version}</span>{" "}
      <Badge value={status} label={API_VERSION_STATUSES[status].label} />
      {found?.status === ApiVersionStatus.deprecated ? (
        <span className="small"> retires {found.sunsetAt}</span>
      ) : null}
    </span>
  );
}

/**
 * The app's API version (issue 29): the pin its requests without `Api-Version` are served at and
 * its new subscriptions take; raise it to a newer version served now, or roll it back within 72
 * hours of a change. A deprecated or retired pin is said loudly: a retired one answers every call
 * without `Api-Version` with 400 UNSUPPORTED_API_VERSION.
 */
export function AppApiVersion({ app }: { app: AppInfo }) {
  const versions = useApiVersions();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const notify = useNotify();
  const [target, setTarget] = useState("");
  const pin = versions.data?.find((v) => v.version === app.apiVersion);
  const newer = (versions.data ?? []).filter(
    (v) => v.version > app.apiVersion && API_VERSION_STATUSES[v.status].served,
  );
  const rollback =
    app.apiVersionRollback && Date.parse(app.apiVersionRollback.until) > Date.now()
      ? app.apiVersionRollback
      : null;

  async function change(version: string, what: "raise" | "rollback") {
    const ok = await confirm(
      what === "raise"
        ? {
            title: `Upgrade to ${version}?`,
            message:
              "Your app's requests without Api-Version, and its new subscriptions, are served at this version at once. Read the changelog first. You can roll back for 72 hours.",
            confirmLabel: `Upgrade to ${version}`,
          }
        : {
            title: `Roll back to ${version}?`,
            message: "Your app's requests without Api-Version are served at this version again at once.",
            confirmLabel: `Roll back to ${version}`,
          },
    );
    if (!ok) return;
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: app.clientId } },
          body: { apiVersion: version },
        }),
      );
      notify(what === "raise" ? `Upgraded to ${version}` : `Rolled back to ${version}`);
      setTarget("");
      await queryClient.invalidateQueries({ queryKey: ["app", app.clientId] });
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Changing the version failed.", "error");
    }
  }

  return (
    <Panel title="API version">
      {pin?.status === ApiVersionStatus.retired || (versions.data && !pin) ? (
        <p className="warning" role="alert">
          Your app is pinned to {app.apiVersion}, which is retired: every call it makes without an Api-Version
          header is refused (400 UNSUPPORTED_API_VERSION). Upgrade it to a version served now.
        </p>
      ) : pin?.status === ApiVersionStatus.deprecated ? (
        <p className="warning">
          Your app is pinned to {app.apiVersion}, which is deprecated and retires on {pin.sunsetAt}. Upgrade
          before then; the calls below show what still uses it.
        </p>
      ) : null}
      <dl className="details">
        <dt>Pinned version</dt>
        <dd>
          {versions.isPending ? (
            <Loading />
          ) : (
            <VersionLabel version={app.apiVersion} versions={versions.data} />
          )}
        </dd>
        {rollback ? (
          <>
            <dt>Previous version</dt>
            <dd>
              <span className="mono">{rollback.version}</span>, until {when(rollback.until)}{" "}
              <button
                type="button"
                className="secondary small"
                onClick={() => change(rollback.version, "rollback")}
              >
                Roll back to {rollback.version}
              </button>
            </dd>
          </>
        ) : null}
      </dl>
      {newer.length ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (target) void change(target, "raise");
          }}
        >
          <label>
            Upgrade to{" "}
            <select value={target} onChange={(event) => setTarget(event.target.value)}>
              <option value="">Choose a version</option>
              {newer.map((v) => (
                <option key={v.version} value={v.version}>
                  {v.version} ({v.status})
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="submit" disabled={!target}>
            Upgrade
          </button>{" "}
          <a href="/api/docs/changelog" target="_blank" rel="noreferrer">
            What changed
          </a>
        </form>
      ) : (
        <p className="muted small">This is the newest version.</p>
      )}
      <DeprecatedCalls clientId={app.clientId} />
    </Panel>
  );
}

const USAGE_WORDS = (usage: string) =>
  usage === "version" ? "the version" : usage === "operation" ? "the operation" : `field ${usage.slice(6)}`;

/** The app's calls over the last 30 days that used something deprecated. */
function DeprecatedCalls({ clientId }: { clientId: string }) {
  const calls = useQuery({
    queryKey: ["deprecated-calls", clientId],
    queryFn: async () =>
      (
        await unwrap<DeprecatedCall[]>(
          api.GET("/api/v1/dashboard/apps/{clientId}/deprecated-calls", { params: { path: { clientId } } }),
        )
      ).data,
  });
  return (
    <section aria-label="Deprecated calls">
      <h3>Deprecated calls, last 30 days</h3>
      {calls.isPending ? (
        <Loading />
      ) : calls.data?.length ? (
        <Table
          caption="Calls that used something deprecated"
          headers={["Version", "Operation", "Deprecated", { label: "Calls", num: true }, "Last call"]}
        >
          {calls.data.map((c) => (
            <tr key={`${c.apiVersion} ${c.operationId} ${c.usage}`}>
              <td data-label="Version" className="mono">
                {c.apiVersion}
              </td>
              <td data-label="Operation" className="mono">
                {c.operationId}
              </td>
              <td data-label="Deprecated">{USAGE_WORDS(c.usage)}</td>
              <td data-label="Calls" className="num">
                {c.calls.toLocaleString()}
              </td>
              <td data-label="Last call" className="small">
                {when(c.lastAt)}
              </td>
            </tr>
          ))}
        </Table>
      ) : (
        <Empty>No call used a deprecated version, operation or field.</Empty>
      )}
    </section>
  );
}

/** A key pair's API version, changed by the merchant: its requests follow at once. */
export function KeyApiVersion(props: { slug: string; apiKey: ApiKey; onChanged: () => unknown }) {
  const versions = useApiVersions();
  const notify = useNotify();
  const served = (versions.data ?? []).filter((v) => API_VERSION_STATUSES[v.status].served);
  const { apiKey } = props;
  async function change(version: string) {
    try {
      await unwrap(
        api.PATCH("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: props.slug, keyId: apiKey.keyId } },
          body: { apiVersion: version },
        }),
      );
      notify(`${apiKey.name} now uses ${version}`);
      await props.onChanged();
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Changing the version failed.", "error");
    }
  }
  if (apiKey.revokedAt) return <VersionLabel version={apiKey.apiVersion} versions={versions.data} />;
  return (
    <label className="version-pick">
      <span className="visually-hidden">API version of {apiKey.name}</span>
      <select value={apiKey.apiVersion} onChange={(event) => void change(event.target.value)}>
        {served.some((v) => v.version === apiKey.apiVersion) ? null : (
          <option value={apiKey.apiVersion}>{apiKey.apiVersion} (retired)</option>
        )}
        {served.map((v) => (
          <option key={v.version} value={v.version}>
            {v.version} ({statusText(v)})
          </option>
        ))}
      </select>
    </label>
  );
}
