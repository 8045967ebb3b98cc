import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate } from "react-router";
import { ApiError, api, NO_BODY, unwrap } from "../api/client.ts";
import { useForget, useMe } from "../api/session.ts";
import type { Account } from "../api/types.ts";
import {
  FormActions,
  FormAlert,
  PageHeader,
  Panel,
  TextField,
  useConfirm,
  useNotify,
  useSubmit,
} from "../components/ui.tsx";
import { Email, PASSWORD_RULE, Password, PersonName } from "../contract.ts";
import { when } from "../lib/format.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

export function AccountPage() {
  const me = useMe().data;
  const confirm = useConfirm();
  const notify = useNotify();
  const forget = useForget();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  async function everywhere() {
    const ok = await confirm({
      title: "Sign out everywhere?",
      message: "Every browser signed in to this account is signed out, this one too.",
      confirmLabel: "Sign out everywhere",
    });
    if (!ok) return;
    try {
      await unwrap(api.POST("/api/v1/dashboard/auth/logout-everywhere", { body: NO_BODY }));
      forget();
      queryClient.clear();
      navigate("/login", { replace: true });
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Signing out failed.", "error");
    }
  }

  return (
    <>
      <PageHeader title="Account" subtitle={me ? `${me.name} · ${me.email}` : undefined} />
      <Panel title="Profile">
        {me ? <ProfileForm key={`${me.name} ${me.email} ${me.pendingEmail?.email ?? ""}`} me={me} /> : null}
        <p className="muted small">Member since {when(me?.createdAt)}.</p>
      </Panel>
      <Panel title="Change password">
        <PasswordForm />
      </Panel>
      <Panel title="Sessions">
        <p className="muted">Lost a device, or signed in on a shared computer? End every session at once.</p>
        <div className="actions">
          <button type="button" className="danger" onClick={everywhere}>
            Sign out everywhere
          </button>
        </div>
      </Panel>
    </>
  );
}

/** Name and sign-in e-mail; a new e-mail address is confirmed with the password. */
function ProfileForm({ me }: { me: Account }) {
  const [name, setName] = useState(me.name);
  const [email, setEmail] = useState(me.email);
  const [password, setPassword] = useState("");
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "Saving the profile failed." });
  const emailChanged = email.trim() !== me.email;
  const submit = handle(
    () => {
      const invalid = validate([
        ["name", PersonName, name.trim()],
        ["email", Email, email.trim()],
      ]);
      if (emailChanged && !password)
        invalid.push({ field: "currentPassword", message: "is needed to change the e-mail address" });
      return invalid;
    },
    async () => {
      const body = {
        ...(name.trim() !== me.name ? { name: name.trim() } : {}),
        ...(emailChanged ? { email: email.trim(), currentPassword: password } : {}),
      };
      if (Object.keys(body).length === 0) return notify("Nothing to save");
      const { data } = await unwrap<Account>(api.PATCH("/api/v1/dashboard/account", { body }));
      queryClient.setQueryData(["me"], data);
      setPassword("");
      notify(
        emailChanged
          ? `We sent a confirmation link to ${data.pendingEmail?.email ?? email.trim()}. Open it to sign in with that address.`
          : "Profile saved",
      );
    },
  );
  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField label="Name" value={name} onChange={setName} autoComplete="name" error={errors.of("name")} />
      <TextField
        label="E-mail"
        type="email"
        value={email}
        onChange={setEmail}
        autoComplete="email"
        hint="You sign in with it. A new address is confirmed by a link sent to it."
        error={errors.of("email")}
      />
      {emailChanged ? (
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          hint="Confirms that it is you asking."
          error={errors.of("currentPassword")}
        />
      ) : null}
      {me.pendingEmail ? (
        <div className="alert info wide" role="status">
          Waiting for confirmation: <strong>{me.pendingEmail.email}</strong>. Open the link we sent there (it
          works until {when(me.pendingEmail.expiresAt)}). Until then you sign in with {me.email}.
        </div>
      ) : null}
      <FormActions busy={busy} label="Save profile" />
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const notify = useNotify();
  const { errors, busy, handle } = useSubmit({ failure: "Changing the password failed." });
  const submit = handle(
    () => {
      const invalid = validate([["newPassword", Password, next]]);
      if (!current) invalid.push({ field: "currentPassword", message: "is required" });
      if (next !== repeat) invalid.push({ field: "repeat", message: "does not match the new password" });
      return invalid;
    },
    async () => {
      const { data } = await unwrap<{ signedOutSessions: number }>(
        api.POST("/api/v1/dashboard/account/password", {
          body: { currentPassword: current, newPassword: next },
        }),
      );
      setCurrent("");
      setNext("");
      setRepeat("");
      notify(
        data.signedOutSessions
          ? `Password changed; ${data.signedOutSessions} other session(s) signed out`
          : "Password changed",
      );
    },
  );

  return (
    <form className="form grid" onSubmit={submit} noValidate>
      <FormAlert message={errors.message} />
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
        error={errors.of("currentPassword")}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={setNext}
        hint={`${PASSWORD_RULE} Every other session is signed out.`}
        error={errors.of("newPassword")}
      />
      <TextField
        label="Repeat the new password"
        type="password"
        autoComplete="new-password"
        value={repeat}
        onChange={setRepeat}
        error={errors.of("repeat")}
      />
      <FormActions busy={busy} label="Change password" />
    </form>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/account", element: <AccountPage /> })];
