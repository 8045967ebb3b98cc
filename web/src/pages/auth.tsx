import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router";
import { ApiError, api, unwrap } from "../api/client.ts";
import { FormAlert, TextField, useSubmit } from "../components/ui.tsx";
import { Email, PASSWORD_RULE, Password, PersonName } from "../contract.ts";
import { sameOriginPath } from "../lib/next-path.ts";
import { definePage } from "../lib/page.ts";
import { validate } from "../lib/validate.ts";

/** Where to go after signing in: the page that asked, if it is one of ours. */
function useNext() {
  const [params] = useSearchParams();
  return sameOriginPath(params.get("next"), window.location.origin);
}

type Account = { id: string; email: string; name: string; createdAt: string };

/** The card of the pages outside the signed-in layout (sign-in, sign-up, an invitation). */
export function AuthCard(props: { title: string; children: React.ReactNode; footer: React.ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="auth-brand">
          <span className="logo" aria-hidden="true">
            M
          </span>
          Merchant Platform
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.children}
        <p className="auth-switch">{props.footer}</p>
      </div>
    </main>
  );
}

export function LoginPage() {
  const [params] = useSearchParams();
  const { search } = useLocation();
  const [email, setEmail] = useState(params.get("email")?.slice(0, 254) ?? "");
  const [password, setPassword] = useState("");
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const next = useNext();
  const { errors, busy, handle } = useSubmit({ failure: "Signing in failed." });
  const submit = handle(
    () => [],
    async () => {
      const { data } = await unwrap<Account>(
        api.POST("/api/v1/dashboard/auth/login", { body: { email, password } }),
      );
      queryClient.setQueryData(["me"], data);
      navigate(next, { replace: true });
    },
  );

  return (
    <AuthCard
      title="Log in"
      footer={
        <>
          New here? <Link to={`/signup${search}`}>Create an account</Link>
        </>
      }
    >
      <form className="form" onSubmit={submit} noValidate>
        <FormAlert message={errors.message} />
        <TextField
          label="E-mail"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
          error={errors.of("email")}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          error={errors.of("password")}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
        <p className="auth-aside">
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
      </form>
    </AuthCard>
  );
}

export function SignupPage() {
  const [params] = useSearchParams();
  const { search } = useLocation();
  const next = useNext();
  const [name, setName] = useState("");
  // An invitation's page sends the invited address along: the account must use it.
  const [email, setEmail] = useState(params.get("email")?.slice(0, 254) ?? "");
  const [password, setPassword] = useState("");
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "Creating the account failed." });
  const submit = handle(
    () =>
      validate([
        ["name", PersonName, name.trim()],
        ["email", Email, email.trim()],
        ["password", Password, password],
      ]),
    async () => {
      const { data } = await unwrap<Account>(
        api.POST("/api/v1/dashboard/auth/signup", {
          body: { name: name.trim(), email: email.trim(), password },
        }),
      );
      queryClient.setQueryData(["me"], data);
      navigate(next, { replace: true });
    },
  );

  return (
    <AuthCard
      title="Create your account"
      footer={
        <>
          Already have one? <Link to={`/login${search}`}>Log in</Link>
        </>
      }
    >
      <form className="form" onSubmit={submit} noValidate>
        <FormAlert message={errors.message} />
        <TextField
          label="Your name"
          autoComplete="name"
          value={name}
          onChange={setName}
          error={errors.of("name")}
        />
        <TextField
          label="E-mail"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
          error={errors.of("email")}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          hint={PASSWORD_RULE}
          error={errors.of("password")}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Creating account…" : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}

/**
 * The secret of an e-mailed link: it comes after `#token=`, so it never reaches a server in a
 * request line or a Referer. Read once, then taken out of the address bar and the history.
 */
function useLinkToken(): string {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get("token") ?? "");
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
  }, []);
  return token;
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { errors, busy, handle } = useSubmit({ failure: "Sending the link failed." });
  const submit = handle(
    () => validate([["email", Email, email.trim()]]),
    async () => {
      await unwrap(api.POST("/api/v1/dashboard/auth/password-reset", { body: { email: email.trim() } }));
      setSentTo(email.trim());
    },
  );
  return (
    <AuthCard
      title="Reset your password"
      footer={
        <>
          Remembered it? <Link to="/login">Log in</Link>
        </>
      }
    >
      {sentTo ? (
        <div className="alert success" role="status">
          <p className="alert-title">Check your inbox</p>
          <p>
            If an account signs in with <strong>{sentTo}</strong>, a link to choose a new password is on its
            way. It works once, for 30 minutes. Nothing arrived? Check the spam folder, or ask again in a few
            minutes.
          </p>
        </div>
      ) : (
        <>
          <p className="muted">
            Enter the e-mail address you sign in with. We will send you a link to choose a new password.
          </p>
          <form className="form" onSubmit={submit} noValidate>
            <FormAlert message={errors.message} />
            <TextField
              label="E-mail"
              type="email"
              autoComplete="email"
              value={email}
              onChange={setEmail}
              error={errors.of("email")}
            />
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Sending…" : "Send the link"}
            </button>
          </form>
        </>
      )}
    </AuthCard>
  );
}

export function ResetPasswordPage() {
  const token = useLinkToken();
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [done, setDone] = useState(false);
  const queryClient = useQueryClient();
  const { errors, busy, handle } = useSubmit({ failure: "Setting the password failed." });
  const submit = handle(
    () => {
      const invalid = validate([["newPassword", Password, password]]);
      if (password !== repeat) invalid.push({ field: "repeat", message: "does not match the new password" });
      return invalid;
    },
    async () => {
      await unwrap(
        api.POST("/api/v1/dashboard/auth/password-reset/confirm", { body: { token, newPassword: password } }),
      );
      // Every session of the account ended, this browser's too.
      queryClient.clear();
      setDone(true);
    },
  );
  const footer = (
    <>
      Need a new link? <Link to="/forgot-password">Ask for one</Link>
    </>
  );
  if (!token)
    return (
      <AuthCard title="This link is incomplete" footer={footer}>
        <p className="muted">Open the link from the e-mail exactly as it was sent, or ask for a new one.</p>
      </AuthCard>
    );
  if (done)
    return (
      <AuthCard title="Your password was changed" footer={<Link to="/login">Log in</Link>}>
        <div className="alert success" role="status">
          Every other session of the account was signed out. Log in with your new password.
        </div>
      </AuthCard>
    );
  return (
    <AuthCard title="Choose a new password" footer={footer}>
      <form className="form" onSubmit={submit} noValidate>
        <FormAlert message={errors.message} />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          hint={PASSWORD_RULE}
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
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving…" : "Set the new password"}
        </button>
      </form>
    </AuthCard>
  );
}

export function ConfirmEmailPage() {
  const token = useLinkToken();
  const queryClient = useQueryClient();
  const [state, setState] = useState<{ email?: string; error?: string } | null>(null);
  const { busy, handle } = useSubmit({ failure: "Confirming the address failed." });
  const submit = handle(
    () => [],
    async () => {
      try {
        const { data } = await unwrap<{ email: string }>(
          api.POST("/api/v1/dashboard/auth/email-change/confirm", { body: { token } }),
        );
        await queryClient.invalidateQueries({ queryKey: ["me"] });
        setState({ email: data.email });
      } catch (error) {
        setState({ error: error instanceof ApiError ? error.message : "Confirming the address failed." });
      }
    },
  );
  return (
    <AuthCard
      title={state?.email ? "Your new address is confirmed" : "Confirm your new e-mail address"}
      footer={<Link to="/account">Go to your account</Link>}
    >
      {!token ? (
        <p className="muted">Open the link from the e-mail exactly as it was sent.</p>
      ) : state?.email ? (
        <div className="alert success" role="status">
          You now sign in with <strong>{state.email}</strong>.
        </div>
      ) : (
        <>
          <p className="muted">Your account will sign in with the address this link was sent to.</p>
          {state?.error ? <FormAlert message={state.error} /> : null}
          <form className="form" onSubmit={submit} noValidate>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Confirming…" : "Confirm this address"}
            </button>
          </form>
        </>
      )}
    </AuthCard>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({ path: "/login", element: <LoginPage />, bare: true }),
  definePage({ path: "/signup", element: <SignupPage />, bare: true }),
  definePage({ path: "/forgot-password", element: <ForgotPasswordPage />, bare: true }),
  definePage({ path: "/reset-password", element: <ResetPasswordPage />, bare: true }),
  definePage({ path: "/confirm-email", element: <ConfirmEmailPage />, bare: true }),
];
