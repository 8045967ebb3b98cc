import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError, api, NO_BODY, unwrap } from "../api/client.ts";
import { useForget, useMe } from "../api/session.ts";
import type { InvitationAccepted, InvitationPreview } from "../api/types.ts";
import { FormAlert, Loading } from "../components/ui.tsx";
import { STORE_ROLES } from "../contract.ts";
import { when } from "../lib/format.ts";
import { definePage } from "../lib/page.ts";
import { AuthCard } from "./auth.tsx";

const TOKEN_KEY = "mp.invitation";

/**
 * The invitation's token: from the link's fragment (`#token=…`, never sent to the server with a
 * page request), kept for this tab while the person signs in or signs up, and taken out of the
 * address bar so it is not left in the history.
 */
function invitationToken(): string | null {
  const fromLink = /^#token=([0-9A-Za-z_]{1,100})$/.exec(window.location.hash)?.[1];
  if (fromLink) {
    sessionStorage.setItem(TOKEN_KEY, fromLink);
    history.replaceState(history.state, "", window.location.pathname);
    return fromLink;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** The page an invitation's link opens: what it offers, then accepting it with the invited address. */
export function InvitationPage() {
  const [token] = useState(invitationToken);
  const me = useMe();
  const forget = useForget();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const invitation = useQuery({
    queryKey: ["invitation", token],
    enabled: token !== null,
    retry: false,
    queryFn: async () =>
      (
        await unwrap<InvitationPreview>(
          api.POST("/api/v1/dashboard/invitations/lookup", { body: { token: token! } }),
        )
      ).data,
  });

  if (token === null || invitation.error)
    return (
      <AuthCard title="This invitation cannot be used" footer={<Link to="/">Go to the dashboard</Link>}>
        <p>
          {invitation.error instanceof ApiError
            ? invitation.error.message
            : "The link is incomplete. Open it again from the e-mail, or ask for a new invitation."}
        </p>
      </AuthCard>
    );
  if (invitation.isPending || me.isPending) return <Loading what="Opening the invitation" />;

  const offer = invitation.data;
  const role = STORE_ROLES[offer.role];
  const next = encodeURIComponent("/invitation");
  const matches = me.data ? me.data.email.toLowerCase() === offer.email.toLowerCase() : false;

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      const { data } = await unwrap<InvitationAccepted>(
        api.POST("/api/v1/dashboard/invitations/accept", { body: { token: token! } }),
      );
      sessionStorage.removeItem(TOKEN_KEY);
      await queryClient.invalidateQueries({ queryKey: ["stores"] });
      navigate(`/stores/${data.store.slug}`, { replace: true });
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : "Accepting the invitation failed.");
      setBusy(false);
    }
  }
  async function switchAccount() {
    await api.POST("/api/v1/dashboard/auth/logout", { body: NO_BODY });
    forget();
    navigate(`/login?next=${next}&email=${encodeURIComponent(offer.email)}`);
  }

  return (
    <AuthCard
      title={`Join ${offer.storeName}`}
      footer={<>The link works once, until {when(offer.expiresAt)}.</>}
    >
      <p>
        {offer.invitedBy ? (
          <>
            <span className="strong user-text">{offer.invitedBy}</span> invited
          </>
        ) : (
          "You are invited"
        )}{" "}
        <span className="user-text">{offer.email}</span> to work in{" "}
        <span className="strong user-text">{offer.storeName}</span> as{" "}
        <span className="strong">{role.label}</span>.
      </p>
      <p className="muted invitation-role">{role.description}</p>
      <FormAlert message={error} />
      {me.data ? (
        matches ? (
          <button type="button" className="primary invitation-accept" disabled={busy} onClick={accept}>
            {busy ? "Joining…" : `Accept and open ${offer.storeName}`}
          </button>
        ) : (
          <>
            <p role="note">
              You are signed in as <span className="user-text">{me.data.email}</span>. This invitation is for{" "}
              <span className="user-text">{offer.email}</span>.
            </p>
            <button type="button" className="primary invitation-accept" onClick={switchAccount}>
              Log out and use {offer.email}
            </button>
          </>
        )
      ) : (
        <div className="auth-actions">
          <Link
            className="button-link primary"
            to={`/signup?next=${next}&email=${encodeURIComponent(offer.email)}`}
          >
            Create an account
          </Link>
          <Link className="button-link" to={`/login?next=${next}&email=${encodeURIComponent(offer.email)}`}>
            I have an account: log in
          </Link>
        </div>
      )}
    </AuthCard>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/invitation", element: <InvitationPage />, bare: true })];
