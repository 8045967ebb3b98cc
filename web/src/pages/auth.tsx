import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router";
import { api, unwrap } from "../api/client.ts";
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

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({ path: "/login", element: <LoginPage />, bare: true }),
  definePage({ path: "/signup", element: <SignupPage />, bare: true }),
];
