import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import { useMe } from "../api/session.ts";
import { Field, FormAlert, Loading } from "../components/ui.tsx";
import type { Scope } from "../contract.ts";
import { definePage } from "../lib/page.ts";

interface ConsentRequest {
  app: { clientId: string; name: string };
  scopes: Array<{ scope: Scope; label: string; description: string }>;
  stores: Array<{ slug: string; name: string }>;
  preselect: string | null;
}

/**
 * The OAuth consent step (the authorize endpoint sends the merchant here with the app's query):
 * which app, what it may do in plain words, into which store. Approve or Cancel; either way the
 * browser goes back to the app's redirect URI with the answer the server builds.
 */
export function ConsentPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const me = useMe();
  const params = new URLSearchParams(location.search);
  const heading = useRef<HTMLHeadingElement>(null);
  const [store, setStore] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const request = useQuery({
    queryKey: ["consent", location.search],
    queryFn: async () =>
      (
        await unwrap<ConsentRequest>(
          api.GET("/api/v1/dashboard/oauth/consent", {
            params: { query: Object.fromEntries(params) as never },
          }),
        )
      ).data,
    enabled: Boolean(me.data),
    retry: false,
  });
  useEffect(() => {
    if (me.isSuccess && !me.data)
      navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
  }, [me.isSuccess, me.data, navigate, location]);
  useEffect(() => {
    if (request.data) heading.current?.focus();
  }, [request.data]);

  async function decide(approve: boolean) {
    const r = request.data;
    if (!r) return;
    const slug = store || r.preselect || r.stores[0]?.slug;
    if (!slug) return setError("Create a store first: the app is installed into one of your stores.");
    setBusy(true);
    setError(null);
    try {
      const { data } = await unwrap<{ redirectTo: string }>(
        api.POST("/api/v1/dashboard/oauth/consent", {
          body: {
            clientId: r.app.clientId,
            redirectUri: params.get("redirect_uri") ?? "",
            scopes: r.scopes.map((s) => s.scope),
            storeSlug: slug,
            approve,
            ...(params.get("state") !== null ? { state: params.get("state")! } : {}),
            ...(params.get("code_challenge") ? { codeChallenge: params.get("code_challenge")! } : {}),
            ...(params.get("code_challenge_method")
              ? { codeChallengeMethod: params.get("code_challenge_method")! }
              : {}),
          },
        }),
      );
      window.location.assign(data.redirectTo);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : "The decision could not be recorded.");
      setBusy(false);
    }
  }

  if (me.isPending || (me.data && request.isPending)) return <Loading what="Loading the request" />;
  const r = request.data;
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="auth-brand">
          <span className="logo" aria-hidden="true">
            M
          </span>
          Merchant Platform
        </p>
        {!r ? (
          <>
            <h1 ref={heading} tabIndex={-1}>
              Cannot authorize this app
            </h1>
            <div className="alert" role="alert">
              {request.error instanceof ApiError
                ? request.error.message
                : "The authorization link is not valid."}
            </div>
            <p className="muted">You have not been sent back to the app.</p>
          </>
        ) : (
          <>
            {/* The app names itself: each <bdi> keeps a right-to-left override in the name from
                turning the platform's own words after it around. */}
            <h1 ref={heading} tabIndex={-1}>
              Install <bdi>{r.app.name}</bdi>?
            </h1>
            <p>
              <bdi className="strong">{r.app.name}</bdi> asks to:
            </p>
            <ul className="consent-scopes">
              {r.scopes.map((s) => (
                <li key={s.scope}>
                  <span className="strong">{s.label}</span> <code>{s.scope}</code>
                  <br />
                  <span className="small muted">{s.description}</span>
                </li>
              ))}
            </ul>
            {r.stores.length ? (
              <Field label="Install into" hint="The app sees only this store.">
                {({ id, describedBy }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    value={store || r.preselect || r.stores[0]!.slug}
                    onChange={(e) => setStore(e.target.value)}
                  >
                    {r.stores.map((s) => (
                      <option key={s.slug} value={s.slug}>
                        {s.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            ) : (
              <p className="warning">
                No store to install it in: apps are installed by a store's owner or its admins. Create a
                store, or ask the owner of yours.
              </p>
            )}
            <FormAlert message={error} />
            <div className="actions">
              <button type="button" className="secondary" disabled={busy} onClick={() => decide(false)}>
                Cancel
              </button>
              <button
                type="button"
                className="primary"
                disabled={busy || r.stores.length === 0}
                onClick={() => decide(true)}
              >
                {busy ? "Installing…" : "Approve and install"}
              </button>
            </div>
            <p className="small muted">You can uninstall it at any time under Installed apps.</p>
          </>
        )}
      </div>
    </main>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/oauth/consent", element: <ConsentPage />, bare: true })];
