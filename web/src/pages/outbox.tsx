import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError, api, unwrap } from "../api/client.ts";
import { Empty, Loading } from "../components/ui.tsx";
import { when } from "../lib/format.ts";
import { definePage } from "../lib/page.ts";

type Summary = { id: string; kind: string; to: string; subject: string; status: string; createdAt: string };
type Message = Summary & { text: string; htmlUrl: string };

const STATUS_LABEL: Record<string, string> = { pending: "Waiting", sent: "Kept", failed: "Failed" };
const KIND_LABEL: Record<string, string> = {
  password_reset: "Password reset",
  password_changed: "Password changed",
  email_change_confirm: "Confirm new address",
  email_change_notice: "Address change notice",
  email_changed: "Address changed",
  staff_invitation: "Staff invitation",
};

/**
 * Opens the outbox with the key of the start log's link (after `#key=`, so it stays out of
 * request lines and Referers): the server sets a cookie for the outbox's routes, and the key
 * leaves the address bar.
 */
function useOpenOutbox() {
  const [opened, setOpened] = useState<"opening" | "ready" | string>(() =>
    new URLSearchParams(window.location.hash.slice(1)).get("key") ? "opening" : "ready",
  );
  useEffect(() => {
    const key = new URLSearchParams(window.location.hash.slice(1)).get("key");
    if (!key) return;
    window.history.replaceState(null, "", window.location.pathname);
    unwrap(api.POST("/api/v1/dashboard/mail-outbox/session", { body: { key } })).then(
      () => setOpened("ready"),
      (error) => setOpened(error instanceof ApiError ? error.message : "Opening the outbox failed."),
    );
  }, []);
  return opened;
}

export function OutboxPage() {
  const opened = useOpenOutbox();
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ["mail-outbox"],
    enabled: opened === "ready",
    retry: false,
    refetchInterval: 5000,
    queryFn: async () => (await unwrap<Summary[]>(api.GET("/api/v1/dashboard/mail-outbox"))).data,
  });
  const message = useQuery({
    queryKey: ["mail-outbox", selected],
    enabled: selected !== null,
    retry: false,
    queryFn: async () =>
      (
        await unwrap<Message>(
          api.GET("/api/v1/dashboard/mail-outbox/{id}", { params: { path: { id: selected ?? "" } } }),
        )
      ).data,
  });
  const failure =
    opened !== "ready" && opened !== "opening"
      ? opened
      : list.error instanceof ApiError
        ? list.error.status === 404
          ? "There is no local outbox: this platform sends its e-mail through an SMTP server."
          : list.error.status === 401
            ? "Open the outbox with the link the platform prints in its log when it starts (it ends with #key=…)."
            : list.error.message
        : null;

  return (
    <main className="outbox" id="main">
      <header className="outbox-header">
        <p className="auth-brand">
          <span className="logo" aria-hidden="true">
            M
          </span>
          Merchant Platform
        </p>
        <h1>Mail outbox</h1>
        <p className="muted">
          No SMTP server is configured, so the platform keeps the e-mail it would have sent here, for whoever
          runs it. Set <code>SMTP_URL</code> to send it for real.
        </p>
      </header>
      {failure ? (
        <div className="alert error" role="alert">
          {failure}
        </div>
      ) : list.isPending ? (
        <Loading what="Loading the outbox" />
      ) : (
        <div className="outbox-body">
          <section className="outbox-list" aria-label="Messages">
            {list.data?.length ? (
              <ul>
                {list.data.map((m) => (
                  <li key={m.id}>
                    <button
                      type="button"
                      className={m.id === selected ? "outbox-item selected" : "outbox-item"}
                      aria-current={m.id === selected ? "true" : undefined}
                      onClick={() => setSelected(m.id)}
                    >
                      <span className="outbox-subject">{m.subject}</span>
                      <span className="outbox-meta">
                        To {m.to} · {when(m.createdAt)}
                      </span>
                      <span className="outbox-tags">
                        <span className="outbox-kind">{KIND_LABEL[m.kind] ?? m.kind}</span>
                        <span className={`badge outbox-status-${m.status}`}>
                          {STATUS_LABEL[m.status] ?? m.status}
                        </span>
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>
                No e-mail yet. Messages appear here as the platform writes them (a password reset, for one).
              </Empty>
            )}
          </section>
          <section className="outbox-view" aria-label="Message">
            {selected === null ? (
              <p className="muted">Choose a message to read it as its recipient would.</p>
            ) : message.data ? (
              <article>
                <h2>{message.data.subject}</h2>
                <dl className="outbox-headers">
                  <dt>To</dt>
                  <dd>{message.data.to}</dd>
                  <dt>Written</dt>
                  <dd>{when(message.data.createdAt)}</dd>
                </dl>
                <iframe
                  className="outbox-frame"
                  title={`The message "${message.data.subject}" as HTML`}
                  src={message.data.htmlUrl}
                  sandbox="allow-popups allow-popups-to-escape-sandbox"
                />
                <details className="outbox-text">
                  <summary>Plain-text version</summary>
                  <pre>{message.data.text}</pre>
                </details>
              </article>
            ) : message.error ? (
              <div className="alert error" role="alert">
                {message.error.message}
              </div>
            ) : (
              <Loading what="Loading the message" />
            )}
          </section>
        </div>
      )}
    </main>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "/outbox", element: <OutboxPage />, bare: true })];
