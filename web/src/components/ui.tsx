import {
  createContext,
  type FormEvent,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { useBlocker } from "react-router";
import { ApiError, type FieldError } from "../api/client.ts";

/** A labelled control with its hint and its error beside it (announced, and tied by aria). */
export function Field(props: {
  label: string;
  error?: string | null | undefined;
  hint?: ReactNode;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  className?: string;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field ${props.className ?? ""}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, describedBy, invalid: Boolean(props.error) })}
      {props.hint ? (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p className="field-error" id={errorId}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** Text input with everything Field gives it. */
export function TextField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | null | undefined;
  hint?: ReactNode;
  type?: string;
  required?: boolean;
  autoComplete?: string;
  inputMode?: "decimal" | "numeric" | "email" | "text";
  placeholder?: string;
  maxLength?: number;
  /** `wide`: the whole row of a grid form (a URL, a long text). */
  className?: string;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint} className={props.className}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type={props.type ?? "text"}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          required={props.required}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
          placeholder={props.placeholder}
          maxLength={props.maxLength}
        />
      )}
    </Field>
  );
}

/** Errors of a form: one message on top (role=alert), each field's beside it. */
export function useFormErrors() {
  const [message, setMessage] = useState<string | null>(null);
  const [fields, setFields] = useState<FieldError[]>([]);
  const of = useCallback(
    (field: string) =>
      fields.find((f) => f.field === field || f.field.startsWith(`${field}.`))?.message ?? null,
    [fields],
  );
  const clear = useCallback(() => {
    setMessage(null);
    setFields([]);
  }, []);
  const set = useCallback((error: { message: string; fields?: FieldError[] }) => {
    setMessage(error.message);
    setFields(error.fields ?? []);
  }, []);
  return { message, fields, of, clear, set };
}

/** What a form's own check found: the fields, and the form's message when it is not the default. */
export type Check = FieldError[] | { message: string; fields: FieldError[] };

/**
 * A form's submission, the same for every form: the form's own check first (the contract's field
 * rules), then `send`; busy while it runs; a refusal lands as the form's message and each field's
 * error. `answered` hears how it ended (the Idempotency-Key of a create: useIdempotencyKey).
 */
export function useSubmit(options: { failure: string; answered?: (error?: unknown) => void }) {
  const errors = useFormErrors();
  const [busy, setBusy] = useState(false);
  const clearNews = useContext(ClearNewsContext);
  const handle = (check: () => Check, send: () => Promise<unknown>) => async (event?: FormEvent) => {
    event?.preventDefault();
    errors.clear();
    // A form sent again: the success it last reported is not shown beside what this one answers.
    clearNews();
    const found = check();
    const invalid = Array.isArray(found)
      ? { message: "Check the highlighted fields.", fields: found }
      : found;
    if (invalid.fields.length) return errors.set(invalid);
    setBusy(true);
    try {
      await send();
      options.answered?.();
    } catch (error) {
      options.answered?.(error);
      errors.set(error instanceof ApiError ? error : { message: options.failure });
    } finally {
      setBusy(false);
    }
  };
  return { errors, busy, handle };
}

/** A form's buttons: Cancel (when the form can be left) and the submit button, busy while it sends. */
export function FormActions(props: {
  busy: boolean;
  label: string;
  busyLabel?: string;
  onCancel?: (() => void) | undefined;
  /** At the right edge (a page's last action), rather than after the fields. */
  end?: boolean;
}) {
  return (
    <div className={props.end ? "actions end" : "actions"}>
      {props.onCancel ? (
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      ) : null}
      <button type="submit" className="primary" disabled={props.busy}>
        {props.busy ? (props.busyLabel ?? "Saving…") : props.label}
      </button>
    </div>
  );
}

export function FormAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="alert error" role="alert">
      {message}
    </div>
  );
}

/** A status as a coloured badge: `value` picks the colour, `label` is the contract's word for it. */
export function Badge({ value, label }: { value: string; label: string }) {
  return <span className={`badge badge-${value}`}>{label}</span>;
}

/** A value still on its way, as a grey bar of text's height (its words to screen readers). */
export function Pending({ what = "Loading" }: { what?: string }) {
  return (
    <span className="value-pending">
      <span className="visually-hidden">{what}…</span>
    </span>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** True until the first page has shown: the browser's own start (top of the page, skip link first) stands. */
let firstPage = true;

/**
 * The page's title. Focused when a page opens after a navigation inside the dashboard, so screen
 * readers announce where the merchant landed and the keyboard starts there. Not on the first load:
 * there the keyboard starts at the top, where the skip link is.
 */
export function PageHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (firstPage) {
      firstPage = false;
      return;
    }
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <header className="page-header">
      <div>
        <h1 ref={ref} tabIndex={-1}>
          {props.title}
        </h1>
        {props.subtitle ? <p className="muted">{props.subtitle}</p> : null}
      </div>
      {props.actions ? <div className="actions">{props.actions}</div> : null}
    </header>
  );
}

export function Panel(props: { title?: string; children: ReactNode; className?: string; label?: string }) {
  return (
    <section className={`panel ${props.className ?? ""}`} aria-label={props.label ?? props.title}>
      {props.title ? <h2>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/**
 * A secret shown once (an app's client secret, a key pair's secret): brought into view and
 * focused when it appears, wherever the form that made it was, and kept until the person says
 * they copied it. Leaving the page before that asks first; so does closing or reloading the tab.
 */
export function SecretPanel(props: {
  title: string;
  /** The panel's name for assistive technology (its region). */
  label: string;
  warning: ReactNode;
  onDone: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const panel = ref.current;
    if (!panel) return;
    // Focus first (without its own jump), then scroll: the panel's top below any sticky bar.
    panel.focus({ preventScroll: true });
    panel.scrollIntoView({ block: "start" });
  }, []);
  const confirm = useConfirm();
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    confirm({
      title: "Leave without the secret?",
      message: "It is shown only this once. If you have not copied it, you will have to make a new one.",
      confirmLabel: "Leave the page",
    }).then((leave) => (leave ? blocker.proceed() : blocker.reset()));
  }, [blocker, confirm]);
  useEffect(() => {
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener("beforeunload", ask);
    return () => removeEventListener("beforeunload", ask);
  }, []);
  return (
    <section ref={ref} tabIndex={-1} className="panel secret-panel" aria-label={props.label}>
      <h2>{props.title}</h2>
      <p className="warning">{props.warning}</p>
      {props.children}
      <button type="button" className="primary" onClick={props.onDone}>
        I have copied it
      </button>
    </section>
  );
}

/** A read-only value with a Copy button, for credentials shown once. */
export function CopyBox({ label, value }: { label: string; value: string }) {
  const id = useId();
  const ref = useRef<HTMLInputElement>(null);
  const notify = useNotify();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input
          id={id}
          ref={ref}
          className="mono"
          readOnly
          value={value}
          spellCheck={false}
          onFocus={(e) => e.target.select()}
        />
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              notify(`${label} copied`);
            } catch {
              // No clipboard (plain http elsewhere, or refused): select it for Ctrl+C instead.
              ref.current?.select();
              notify("Press Ctrl+C (⌘C) to copy the selected text");
            }
          }}
        >
          Copy
        </button>
      </div>
    </div>
  );
}

// ---- notices and confirmation --------------------------------------------------------------------

type Notice = { id: number; text: string; kind: "info" | "error" };
const NoticeContext = createContext<(text: string, kind?: Notice["kind"]) => void>(() => {});
/** Takes down the news still shown (a form sending again: its last success is no longer news). */
const ClearNewsContext = createContext<() => void>(() => {});
type ConfirmRequest = {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
};
const ConfirmContext = createContext<(r: Omit<ConfirmRequest, "resolve">) => Promise<boolean>>(
  async () => false,
);

export const useNotify = () => useContext(NoticeContext);
export const useConfirm = () => useContext(ConfirmContext);

/** Notices (a toast for news, an alert for errors) and the confirmation dialog, for every page. */
export function Feedback({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const [ask, setAsk] = useState<ConfirmRequest | null>(null);
  const seq = useRef(0);
  const notify = useCallback((text: string, kind: Notice["kind"] = "info") => {
    const id = ++seq.current;
    setNotices((n) => [...n.filter((x) => x.kind !== kind), { id, text, kind }]);
    if (kind === "info") setTimeout(() => setNotices((n) => n.filter((x) => x.id !== id)), 4000);
  }, []);
  const clearNews = useCallback(() => setNotices((n) => n.filter((x) => x.kind !== "info")), []);
  const confirm = useCallback(
    (r: Omit<ConfirmRequest, "resolve">) => new Promise<boolean>((resolve) => setAsk({ ...r, resolve })),
    [],
  );
  return (
    <NoticeContext.Provider value={notify}>
      <ClearNewsContext.Provider value={clearNews}>
        <ConfirmContext.Provider value={confirm}>
          {children}
          <div id="flash">
            {notices
              .filter((n) => n.kind === "error")
              .map((n) => (
                <div key={n.id} className="alert" role="alert">
                  {n.text}
                  <button
                    type="button"
                    className="link"
                    onClick={() => setNotices((all) => all.filter((x) => x.id !== n.id))}
                  >
                    Dismiss
                  </button>
                </div>
              ))}
          </div>
          <div className="toasts" role="status" aria-live="polite">
            {notices
              .filter((n) => n.kind === "info")
              .map((n) => (
                <div key={n.id} className="toast">
                  {n.text}
                </div>
              ))}
          </div>
          {ask ? (
            <ConfirmDialog
              request={ask}
              done={(ok) => {
                ask.resolve(ok);
                setAsk(null);
              }}
            />
          ) : null}
        </ConfirmContext.Provider>
      </ClearNewsContext.Provider>
    </NoticeContext.Provider>
  );
}

function ConfirmDialog({ request, done }: { request: ConfirmRequest; done: (ok: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        done(false);
      }}
    >
      <h2 id={titleId}>{request.title}</h2>
      <div>{request.message}</div>
      <div className="actions end">
        <button type="button" className="secondary" onClick={() => done(false)}>
          Keep it
        </button>
        <button type="button" className="danger-solid" onClick={() => done(true)}>
          {request.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A modal dialog for a form (editing in place). */
export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${props.wide ? "wide" : ""}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
