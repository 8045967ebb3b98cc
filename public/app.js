// The merchant dashboard: a single-page app over the JSON API under /api/v1/dashboard.
// No framework and no build step. Every piece of user data reaches the page through text nodes
// (the h() helper) or form values, never through innerHTML, and the page runs under a CSP that
// forbids inline script.
//
// Layout of this file: DOM helpers, API client, UI kit (forms, tables, dialogs), session state,
// views, and the route table. A new section is one view function plus one entry in STORE_SECTIONS
// (per-store pages) or ROUTES (account-level pages).

const API = "/api/v1/dashboard";

// ---- DOM helpers --------------------------------------------------------------------------------

/**
 * Creates an element: h("button", { class: "primary", onclick }, "Save"). Strings become text
 * nodes. Attributes (value, selected, checked) set the control's default, so form.reset() returns
 * to them.
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

let idCounter = 0;
function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const shortDate = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
});
/** A timestamp in the merchant's locale; the year only when it is not this year (tables stay narrow). */
function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  return (date.getFullYear() === new Date().getFullYear() ? shortDate : fullDate).format(date);
}

/** Amounts travel as decimal strings; they are shown as the server formatted them, never re-computed. */
function money(amount, currency) {
  return `${amount} ${currency}`;
}

function path(...segments) {
  return segments.map((s) => encodeURIComponent(s)).join("/");
}

// ---- API client ---------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(body, status) {
    super(body?.error?.message || body?.message || `The request failed (HTTP ${status}).`);
    this.status = status;
    this.code = body?.error?.code ?? "UNKNOWN";
    this.details = body?.error?.details;
  }
}

/**
 * Calls the dashboard API and returns the success envelope. Every state-changing request sends
 * JSON: the server requires that Content-Type (its CSRF guard), so an empty body is `{}`.
 */
async function api(method, url, body) {
  let res;
  try {
    res = await fetch(`${API}${url}`, {
      method,
      credentials: "same-origin",
      headers: method === "GET" ? { accept: "application/json" } : { "content-type": "application/json" },
      body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
    });
  } catch {
    throw new ApiError({ error: { code: "NETWORK", message: "The server could not be reached." } }, 0);
  }
  const json = await res.json().catch(() => null);
  if (!res.ok || json?.success !== true) {
    // A session that ended elsewhere (logout in another tab, expiry) sends the merchant to log in.
    if (res.status === 401 && session.me && !url.startsWith("/auth/")) sessionExpired();
    throw new ApiError(json, res.status);
  }
  return json;
}

// ---- UI kit -------------------------------------------------------------------------------------

/** The failure envelope as the merchant sees it: the message, then each per-field detail. */
function errorBox(error) {
  const details = error?.details;
  let list = null;
  if (Array.isArray(details) && details.length) {
    list = h(
      "ul",
      {},
      details.map((d) => h("li", {}, h("strong", {}, d.field), ` ${d.message}`)),
    );
  } else if (details && typeof details === "object" && Object.keys(details).length) {
    list = h(
      "ul",
      {},
      Object.entries(details).map(([k, v]) =>
        h("li", {}, h("strong", {}, k), ` ${Array.isArray(v) ? v.join(", ") || "none" : String(v)}`),
      ),
    );
  }
  return h(
    "div",
    { class: "alert error", role: "alert" },
    h("p", { class: "alert-title" }, error?.message || "Something went wrong."),
    list,
  );
}

function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.hidden = true;
  }, 3000);
}

/** Shows an error for an action that has no form of its own (delete, status change) above the view. */
function flashError(error) {
  const flash = document.getElementById("flash");
  if (!flash) return;
  flash.replaceChildren(errorBox(error));
  flash.scrollIntoView({ block: "nearest" });
}

function clearFlash() {
  document.getElementById("flash")?.replaceChildren();
}

/** Runs a button's action with the button disabled; errors go to the flash area. */
async function busy(button, action) {
  button.disabled = true;
  clearFlash();
  try {
    await action();
  } catch (error) {
    flashError(error);
  } finally {
    button.disabled = false;
  }
}

/** A red button that asks first (`confirm`: title, message, confirmLabel), then runs `action` while busy. */
function dangerButton(label, confirm, action) {
  return h(
    "button",
    {
      type: "button",
      class: "danger",
      onclick: async (e) => {
        const button = e.currentTarget;
        if (!(await confirmDialog(confirm))) return;
        await busy(button, action);
      },
    },
    label,
  );
}

/** A labelled input with a hint and a slot for its own error message. */
function field(label, name, attrs = {}, hint = null) {
  const id = uid("f");
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const { as = "input", options, text, ...rest } = attrs;
  let control;
  if (as === "select") {
    control = h(
      "select",
      { id, name, ...rest },
      options.map(([value, optionLabel, selected]) => h("option", { value, selected }, optionLabel)),
    );
  } else if (as === "textarea") {
    control = h("textarea", { id, name, ...rest }, text ?? "");
  } else {
    control = h("input", { id, name, ...rest });
  }
  control.setAttribute("aria-describedby", [hintId, errorId].filter(Boolean).join(" "));
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    h("p", { class: "field-error", id: errorId, hidden: true }),
  );
}

/** Marks the controls named in `error.details` and writes each message under its control. */
function showFieldErrors(formEl, error) {
  if (!Array.isArray(error?.details)) return;
  for (const detail of error.details) {
    const name = CSS.escape(detail.field);
    const control = formEl.querySelector(`[data-field="${name}"], [name="${name}"]`);
    const slot = control?.closest(".field, .line, fieldset")?.querySelector(".field-error");
    if (!control || !slot) continue;
    control.setAttribute("aria-invalid", "true");
    slot.textContent = slot.hidden ? detail.message : `${slot.textContent}; ${detail.message}`;
    slot.hidden = false;
  }
}

function clearFieldErrors(formEl) {
  for (const el of formEl.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  for (const el of formEl.querySelectorAll(".field-error")) {
    el.textContent = "";
    el.hidden = true;
  }
}

/**
 * A form whose submit calls `submit(values, formEl)` and then `done(result, formEl)`. API errors
 * are shown above the button (the envelope's message and details) and beside each named field.
 */
function apiForm({ fields, submitLabel, submit, done, layout = "grid", extraButtons = [] }) {
  const errors = h("div", { class: "form-errors" });
  const button = h("button", { class: "primary", type: "submit" }, submitLabel);
  const formEl = h(
    "form",
    { class: `form ${layout}` },
    fields,
    errors,
    h("div", { class: "actions" }, button, extraButtons),
  );
  formEl.addEventListener("submit", async (event) => {
    event.preventDefault();
    errors.replaceChildren();
    clearFieldErrors(formEl);
    button.disabled = true;
    formEl.setAttribute("aria-busy", "true");
    try {
      const result = await submit(Object.fromEntries(new FormData(formEl)), formEl);
      await done(result, formEl);
    } catch (error) {
      errors.replaceChildren(errorBox(error));
      showFieldErrors(formEl, error);
    } finally {
      button.disabled = false;
      formEl.removeAttribute("aria-busy");
    }
  });
  return formEl;
}

function badge(text) {
  return h("span", { class: `badge badge-${text}` }, text);
}

function panel(title, ...children) {
  return h("section", { class: "panel" }, title ? h("h2", {}, title) : null, children);
}

function pageHeader(title, subtitle, ...actions) {
  return h(
    "div",
    { class: "page-header" },
    h("div", {}, h("h1", {}, title), subtitle ? h("p", { class: "muted" }, subtitle) : null),
    actions.length ? h("div", { class: "actions" }, actions) : null,
  );
}

function emptyState(...children) {
  return h("div", { class: "empty" }, children);
}

function headerLabel(header) {
  return Array.isArray(header) ? header[0] : header;
}

/** Gives each cell its column name, which the phone layout shows beside the value. */
function labelCells(tr, headers) {
  [...tr.children].forEach((td, i) => {
    const label = headers[i] ? headerLabel(headers[i]) : "";
    if (label) td.dataset.label = label;
  });
  return tr;
}

/** A table head; each header is a label or [label, className]. */
function tableHead(headers) {
  return h(
    "thead",
    {},
    h(
      "tr",
      {},
      headers.map((x) => (Array.isArray(x) ? h("th", { class: x[1] }, x[0]) : h("th", {}, x))),
    ),
  );
}

/** A table; each header is a label or [label, className]. */
function table(headers, rows) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      tableHead(headers),
      h(
        "tbody",
        {},
        rows.map((tr) => labelCells(tr, headers)),
      ),
    ),
  );
}

/**
 * A cursor-paginated list: the first page on load(), then "Load more" while the API returns
 * meta.nextCursor. reload() starts over (after a change, or with another filter).
 */
function pagedTable({ url, pageSize = 20, headers, row, empty }) {
  const tbody = h("tbody");
  const more = h("button", { type: "button", class: "secondary" }, "Load more");
  const count = h("span", { class: "muted" });
  const footer = h("div", { class: "table-footer" }, count, more);
  const element = h(
    "div",
    {},
    h("div", { class: "table-wrap" }, h("table", {}, tableHead(headers), tbody)),
    footer,
  );
  let cursor = null;
  let currentUrl = url;
  let shown = 0;
  const load = async () => {
    const sep = currentUrl.includes("?") ? "&" : "?";
    const res = await api(
      "GET",
      `${currentUrl}${sep}limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    if (!shown) tbody.replaceChildren();
    for (const item of res.data) tbody.append(labelCells(row(item), headers));
    shown += res.data.length;
    if (!shown) {
      tbody.append(h("tr", {}, h("td", { colspan: headers.length, class: "empty-cell" }, empty)));
    }
    cursor = res.meta?.nextCursor ?? null;
    more.hidden = !cursor;
    count.textContent = shown ? `Showing ${shown}${cursor ? "" : ` of ${shown}`}` : "";
  };
  more.addEventListener("click", () => busy(more, load));
  return {
    element,
    load,
    async reload(nextUrl = currentUrl) {
      currentUrl = nextUrl;
      cursor = null;
      shown = 0;
      await load();
    },
  };
}

/** A modal dialog; resolves with the value passed to close(), or null when dismissed. */
function openDialog(title, build, { wide = false } = {}) {
  return new Promise((resolve) => {
    const titleId = uid("dlg");
    let result = null;
    const dialog = h("dialog", { class: `dialog${wide ? " wide" : ""}`, "aria-labelledby": titleId });
    const close = (value = null) => {
      result = value;
      dialog.close();
    };
    dialog.append(h("h2", { id: titleId }, title), build(close));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Asks before a destructive action. Resolves true only when the merchant confirms. */
async function confirmDialog({ title, message, confirmLabel }) {
  const answer = await openDialog(title, (close) =>
    h(
      "div",
      {},
      h("p", {}, message),
      h(
        "div",
        { class: "actions end" },
        h("button", { type: "button", class: "secondary", onclick: () => close(false) }, "Keep it"),
        h("button", { type: "button", class: "danger-solid", onclick: () => close(true) }, confirmLabel),
      ),
    ),
  );
  return answer === true;
}

/** A read-only value with a Copy button, for credentials shown once. */
function copyBox(label, value) {
  const id = uid("copy");
  const input = h("input", { id, class: "mono", readonly: true, value, spellcheck: "false" });
  const button = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        let copied = false;
        try {
          await navigator.clipboard.writeText(value);
          copied = true;
        } catch {
          // Clipboard API missing (plain http on another host) or refused: select the text instead.
          input.select();
          copied = document.execCommand?.("copy") ?? false;
        }
        toast(copied ? `${label} copied` : "Press Ctrl+C (⌘C) to copy the selected text");
      },
    },
    "Copy",
  );
  input.addEventListener("focus", () => input.select());
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h("div", { class: "copy-row" }, input, button),
  );
}

// ---- session ------------------------------------------------------------------------------------

const session = {
  me: null,
  /** Whether `me` reflects the server: asked once at start, then kept by login, logout and 401s. */
  known: false,
  stores: null,
  /** The store the sidebar shows sections for; the slug only, it is not a secret. */
  currentSlug: localStorage.getItem("mp.store"),
};

function setCurrentStore(slug) {
  session.currentSlug = slug;
  if (slug) localStorage.setItem("mp.store", slug);
  else localStorage.removeItem("mp.store");
}

async function loadStores() {
  session.stores = (await api("GET", "/stores")).data;
  if (session.currentSlug && !session.stores.some((s) => s.slug === session.currentSlug)) {
    setCurrentStore(session.stores[0]?.slug ?? null);
  }
  return session.stores;
}

function signedIn(account) {
  session.me = account;
  session.known = true;
  session.stores = null;
}

function sessionExpired() {
  session.me = null;
  session.known = true;
  session.stores = null;
  if (location.hash !== "#/login") location.hash = "#/login";
}

async function logOut() {
  try {
    await api("POST", "/auth/logout");
  } catch {
    // The session may already be gone; the page logs out either way.
  }
  session.me = null;
  session.known = true;
  session.stores = null;
  toast("You are logged out");
  location.hash = "#/login";
}

// ---- views: signed out --------------------------------------------------------------------------

function authView(mode) {
  const signup = mode === "signup";
  document.title = signup ? "Create an account · Merchant Platform" : "Log in · Merchant Platform";
  return h(
    "div",
    { class: "auth" },
    h(
      "section",
      { class: "panel auth-card" },
      h("div", { class: "auth-brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "M"), "Merchant"),
      h("h1", {}, signup ? "Create your merchant account" : "Log in"),
      h(
        "p",
        { class: "muted" },
        signup ? "Open a store and start selling in minutes." : "Welcome back. Manage your stores.",
      ),
      apiForm({
        layout: "stack",
        fields: [
          signup
            ? field("Your name", "name", { required: true, maxlength: 100, autocomplete: "name" })
            : null,
          field("E-mail", "email", {
            type: "email",
            required: true,
            maxlength: 254,
            autocomplete: "username",
          }),
          field(
            "Password",
            "password",
            {
              type: "password",
              required: true,
              minlength: signup ? 10 : 1,
              maxlength: 200,
              autocomplete: signup ? "new-password" : "current-password",
            },
            signup ? "At least 10 characters." : null,
          ),
        ],
        submitLabel: signup ? "Create account" : "Log in",
        submit: (v) => api("POST", signup ? "/auth/signup" : "/auth/login", v),
        done: (res) => {
          signedIn(res.data);
          location.hash = "#/";
        },
      }),
      h(
        "p",
        { class: "auth-switch" },
        signup ? "Already have an account? " : "New here? ",
        h("a", { href: signup ? "#/login" : "#/signup" }, signup ? "Log in" : "Create an account"),
      ),
    ),
  );
}

// ---- views: account level -----------------------------------------------------------------------

function slugify(text) {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

async function storesView() {
  const stores = await loadStores();
  const nameField = field("Store name", "name", {
    required: true,
    maxlength: 100,
    placeholder: "Corner Bakery",
  });
  const slugField = field(
    "Slug",
    "slug",
    {
      required: true,
      minlength: 3,
      maxlength: 48,
      pattern: "[a-z0-9][a-z0-9\\-]{1,46}[a-z0-9]",
      placeholder: "corner-bakery",
    },
    "Lowercase letters, digits and hyphens; used in URLs and by apps. It cannot be changed later.",
  );
  const nameInput = nameField.querySelector("input");
  const slugInput = slugField.querySelector("input");
  // The slug follows the name until the merchant edits it by hand.
  let slugTouched = false;
  slugInput.addEventListener("input", () => {
    slugTouched = true;
  });
  nameInput.addEventListener("input", () => {
    if (!slugTouched) slugInput.value = slugify(nameInput.value);
  });

  const cards = stores.map((s) =>
    h(
      "a",
      { class: "store-card", href: `#/stores/${s.slug}/products` },
      h("span", { class: "store-name" }, s.name),
      h("span", { class: "muted" }, `${s.slug} · ${s.currency}`),
      h("span", { class: "muted small" }, `Opened ${when(s.createdAt)}`),
    ),
  );
  return h(
    "div",
    {},
    pageHeader("Your stores", "Pick a store to manage its catalogue, customers and orders."),
    stores.length
      ? h("div", { class: "store-grid" }, cards)
      : panel(null, emptyState("You have no store yet. Create your first one below.")),
    panel(
      "Create a store",
      apiForm({
        fields: [
          nameField,
          slugField,
          field(
            "Currency",
            "currency",
            {
              required: true,
              value: "USD",
              pattern: "[A-Z]{3}",
              minlength: 3,
              maxlength: 3,
              autocapitalize: "characters",
            },
            "ISO code, e.g. USD, SAR, EUR.",
          ),
        ],
        submitLabel: "Create store",
        submit: (v) => api("POST", "/stores", { ...v, currency: v.currency.toUpperCase() }),
        done: (res) => {
          session.stores = null;
          toast(`${res.data.name} is open`);
          location.hash = `#/stores/${res.data.slug}/products`;
        },
      }),
    ),
  );
}

async function accountView() {
  const { data: me } = await api("GET", "/me");
  session.me = me;
  const rows = [
    ["Name", me.name],
    ["E-mail", me.email],
    ["Account id", h("code", {}, me.id)],
    ["Member since", when(me.createdAt)],
  ];
  return h(
    "div",
    {},
    pageHeader("Account"),
    panel(
      null,
      h(
        "dl",
        { class: "details" },
        rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
      ),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "secondary", onclick: logOut }, "Log out"),
      ),
    ),
  );
}

/** Every scope in plain words: [scope, label, what it allows]. */
const SCOPES = [
  ["read_products", "Read products", "See the catalogue: titles, prices, stock."],
  [
    "write_products",
    "Write products",
    "Create, change and delete products. Only for tools that edit the catalogue.",
  ],
  ["read_orders", "Read orders", "See orders, their items and totals."],
  ["read_customers", "Read customers", "See customer names, e-mails and phone numbers (personal data)."],
  ["manage_webhooks", "Manage webhooks", "Subscribe to the store's events (apps only)."],
];
const APP_SCOPES = SCOPES.map(([scope]) => scope);
// Key pairs are for reading a store from your own scripts; webhooks belong to apps.
const KEY_SCOPES = SCOPES.map(([scope]) => scope).filter((s) => s !== "manage_webhooks");

/** Scope checkboxes with a plain-words description; errors on `scopes` show under the list. */
function scopeChecks(legend, hint, scopes) {
  return h(
    "fieldset",
    { class: "checks" },
    h("legend", {}, legend),
    h("p", { class: "hint" }, hint),
    SCOPES.filter(([value]) => scopes.includes(value)).map(([value, label, description]) =>
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", name: "scope", value, "data-field": "scopes" }),
        h(
          "span",
          { class: "check-text" },
          h("span", {}, h("span", { class: "strong" }, label), " ", h("code", {}, value)),
          h("span", { class: "hint" }, description),
        ),
      ),
    ),
    h("p", { class: "field-error", hidden: true }),
  );
}

async function appsView() {
  const reveal = h("div");
  const listSlot = h("div");
  const showSecret = (title, clientId, clientSecret) => {
    reveal.replaceChildren(
      h(
        "section",
        { class: "panel secret-panel", role: "region", "aria-label": title },
        h("h2", {}, title),
        h(
          "p",
          { class: "warning" },
          h("strong", {}, "Copy the client secret now. "),
          "It is shown only this once: only its hash is stored. If it is lost, rotate it.",
        ),
        copyBox("Client id", clientId),
        copyBox("Client secret", clientSecret),
      ),
    );
    reveal.scrollIntoView({ block: "start" });
  };
  const rotate = async (a, button) => {
    const ok = await confirmDialog({
      title: `Rotate the secret of ${a.name}?`,
      message: "The current client secret stops working at once, on every server.",
      confirmLabel: "Rotate secret",
    });
    if (!ok) return;
    await busy(button, async () => {
      const res = await api("POST", `/apps/${path(a.clientId)}/secret`);
      showSecret(`New client secret for ${a.name}`, a.clientId, res.data.clientSecret);
    });
  };
  const renderList = async () => {
    const { data: apps } = await api("GET", "/apps");
    const rows = apps.map((a) =>
      h(
        "tr",
        {},
        h("td", { class: "strong" }, a.name),
        h("td", {}, h("code", {}, a.clientId)),
        h(
          "td",
          {},
          a.scopes.map((s) => h("code", { class: "scope" }, s)),
        ),
        h("td", { class: "date" }, when(a.createdAt)),
        h(
          "td",
          { class: "cell-actions" },
          h("a", { class: "button secondary", href: `#/apps/${a.clientId}` }, "Deliveries"),
          h(
            "button",
            { type: "button", class: "danger", onclick: (e) => rotate(a, e.currentTarget) },
            "Rotate secret",
          ),
        ),
      ),
    );
    listSlot.replaceChildren(
      apps.length
        ? table(["App", "Client id", "Scopes", "Registered", ""], rows)
        : emptyState("You have not registered an app."),
    );
  };
  await renderList();
  return h(
    "div",
    {},
    pageHeader("My apps", "Apps you build for merchants: credentials, scopes and webhook deliveries."),
    reveal,
    panel(null, listSlot),
    panel(
      "Register an app",
      apiForm({
        layout: "stack",
        fields: [
          field("App name", "name", { required: true, maxlength: 100 }),
          field(
            "Redirect URI",
            "redirectUri",
            { required: true, type: "url", maxlength: 2000, placeholder: "https://app.example.com/callback" },
            "https only; compared exactly at authorization.",
          ),
          scopeChecks(
            "Scopes the app may ask merchants for",
            "Ask for the least you need; merchants see each one in plain words on the consent page.",
            APP_SCOPES,
          ),
        ],
        submitLabel: "Register app",
        submit: (v, f) =>
          api("POST", "/apps", {
            name: v.name.trim(),
            redirectUris: [v.redirectUri.trim()],
            scopes: [...f.querySelectorAll("input[name=scope]:checked")].map((c) => c.value),
          }),
        done: async (res, formEl) => {
          formEl.reset();
          showSecret("Your app credentials", res.data.clientId, res.data.clientSecret);
          await renderList();
        },
      }),
    ),
  );
}

async function deliveriesView(clientId) {
  const [{ data: app }, { data }] = await Promise.all([
    api("GET", `/apps/${path(clientId)}`),
    api("GET", `/apps/${path(clientId)}/deliveries?limit=50`),
  ]);
  const rows = data.map((d) =>
    h(
      "tr",
      {},
      h("td", {}, h("code", {}, d.eventName)),
      h("td", {}, d.storeSlug),
      h("td", {}, badge(d.status)),
      h("td", { class: "num" }, d.attempts),
      h("td", {}, d.lastStatusCode ?? d.lastError ?? "—"),
      h("td", { class: "date" }, when(d.createdAt)),
      h(
        "td",
        { class: "cell-actions" },
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: (e) =>
              busy(e.currentTarget, async () => {
                await api("POST", `/apps/${path(clientId)}/deliveries/${path(d.id)}/redeliver`);
                toast("Queued for delivery again");
                await route();
              }),
          },
          "Redeliver",
        ),
      ),
    ),
  );
  return h(
    "div",
    {},
    pageHeader(`${app.name}: webhook deliveries`, "The 50 most recent deliveries to this app's endpoints."),
    panel(
      null,
      data.length
        ? table(["Event", "Store", "Status", ["Attempts", "num"], "Last answer", "Created", ""], rows)
        : emptyState("No deliveries yet."),
    ),
  );
}

// ---- views: one store ---------------------------------------------------------------------------

async function productsView(store) {
  const base = `/stores/${store.slug}/products`;
  const list = pagedTable({
    url: base,
    headers: ["Product", "SKU", "Status", ["Stock", "num"], ["Price", "num"], ""],
    empty: "No products yet. Add your first one below.",
    row: (p) =>
      h(
        "tr",
        {},
        h(
          "td",
          {},
          h(
            "div",
            {},
            h("div", { class: "strong" }, p.title),
            p.description ? h("div", { class: "muted small clamp" }, p.description) : null,
          ),
        ),
        h("td", {}, p.sku ?? "—"),
        h("td", {}, badge(p.status)),
        h("td", { class: "num" }, p.stock),
        h("td", { class: "num" }, money(p.price, p.currency)),
        h(
          "td",
          { class: "cell-actions" },
          h(
            "button",
            {
              type: "button",
              class: "secondary",
              onclick: async () => {
                const saved = await openDialog(
                  `Edit ${p.title}`,
                  (close) => productForm(store, p, close, () => close(null)),
                  { wide: true },
                );
                if (saved) {
                  toast("Product saved");
                  await list.reload();
                }
              },
            },
            "Edit",
          ),
          dangerButton(
            "Delete",
            {
              title: `Delete ${p.title}?`,
              message: "It disappears from the catalogue at once. Existing orders keep their copy of it.",
              confirmLabel: "Delete product",
            },
            async () => {
              await api("DELETE", `${base}/${path(p.id)}`);
              toast("Product deleted");
              await list.reload();
            },
          ),
        ),
      ),
  });
  await list.load();
  return h(
    "div",
    {},
    pageHeader("Products", `Your catalogue, priced in ${store.currency}.`),
    panel(null, list.element),
    panel(
      "Add a product",
      productForm(store, null, async (created) => {
        toast(`${created.title} created`);
        await list.reload();
      }),
    ),
  );
}

/** The product form, for creating (product = null) or editing; calls onSaved(product) on success. */
function productForm(store, product, onSaved, onCancel) {
  const base = `/stores/${store.slug}/products`;
  return apiForm({
    fields: [
      field("Title", "title", { required: true, maxlength: 255, value: product?.title ?? "" }),
      field(
        `Price (${store.currency})`,
        "price",
        {
          required: true,
          inputmode: "decimal",
          maxlength: 20,
          pattern: "\\d+(\\.\\d{1,3})?",
          placeholder: "19.99",
          value: product?.price ?? "",
        },
        "Decimal, e.g. 19.99.",
      ),
      field("SKU", "sku", { maxlength: 64, value: product?.sku ?? "" }, "Optional; unique in the store."),
      field("Stock", "stock", {
        type: "number",
        min: 0,
        max: 1000000000,
        step: 1,
        required: true,
        value: String(product?.stock ?? 0),
      }),
      field("Status", "status", {
        as: "select",
        options: [
          ["active", "Active (can be ordered)", (product?.status ?? "active") === "active"],
          ["draft", "Draft", product?.status === "draft"],
          ["archived", "Archived", product?.status === "archived"],
        ],
      }),
      h(
        "div",
        { class: "span-all" },
        field("Description", "description", {
          as: "textarea",
          maxlength: 10000,
          rows: 3,
          text: product?.description ?? "",
        }),
      ),
    ],
    submitLabel: product ? "Save changes" : "Create product",
    extraButtons: onCancel
      ? [h("button", { type: "button", class: "secondary", onclick: onCancel }, "Cancel")]
      : [],
    submit: (v) => {
      const body = {
        title: v.title.trim(),
        price: v.price.trim(),
        stock: Number(v.stock || 0),
        status: v.status,
        description: v.description,
        sku: v.sku.trim() || null,
      };
      return product ? api("PATCH", `${base}/${path(product.id)}`, body) : api("POST", base, body);
    },
    done: async (res, formEl) => {
      if (!product) formEl.reset();
      await onSaved(res.data);
    },
  });
}

async function customersView(store) {
  const base = `/stores/${store.slug}/customers`;
  const list = pagedTable({
    url: base,
    headers: ["Name", "E-mail", "Phone", "Customer since"],
    empty: "No customers yet.",
    row: (c) =>
      h(
        "tr",
        {},
        h("td", { class: "strong" }, `${c.firstName} ${c.lastName}`.trim()),
        h("td", {}, c.email),
        h("td", {}, c.phone ?? "—"),
        h("td", { class: "date" }, when(c.createdAt)),
      ),
  });
  await list.load();
  return h(
    "div",
    {},
    pageHeader("Customers", "People who buy from this store."),
    panel(null, list.element),
    panel(
      "Add a customer",
      apiForm({
        fields: [
          field("First name", "firstName", { required: true, maxlength: 100, autocomplete: "off" }),
          field("Last name", "lastName", { maxlength: 100, autocomplete: "off" }),
          field("E-mail", "email", { type: "email", required: true, maxlength: 254, autocomplete: "off" }),
          field("Phone", "phone", { type: "tel", maxlength: 32, placeholder: "+966 50 123 4567" }),
        ],
        submitLabel: "Add customer",
        submit: (v) => api("POST", base, { ...v, phone: v.phone.trim() || null }),
        done: async (res, formEl) => {
          formEl.reset();
          toast(`${res.data.firstName} added`);
          await list.reload();
        },
      }),
    ),
  );
}

/** The order lifecycle the server enforces; the page offers only these moves. */
const NEXT_STATUS = {
  pending: ["paid", "cancelled"],
  paid: ["confirmed", "cancelled"],
  confirmed: ["shipped", "cancelled"],
  shipped: ["delivered"],
  delivered: [],
  cancelled: [],
};
const MOVE_LABEL = {
  paid: "Mark paid",
  confirmed: "Mark confirmed",
  shipped: "Mark shipped",
  delivered: "Mark delivered",
  cancelled: "Cancel order",
};

async function ordersView(store) {
  const base = `/stores/${store.slug}/orders`;
  // The order form and the customer column need the customer list; a store with more than 250
  // customers shows the id for the rest (a search box would be the next step).
  const [customers, products] = await Promise.all([
    api("GET", `/stores/${store.slug}/customers?limit=250`),
    api("GET", `/stores/${store.slug}/products?limit=250&status=active`),
  ]);
  const customerName = new Map(
    customers.data.map((c) => [c.id, `${c.firstName} ${c.lastName}`.trim() || c.email]),
  );

  const moveButton = (o, next) =>
    h(
      "button",
      {
        type: "button",
        class: next === "cancelled" ? "danger" : "secondary",
        onclick: async (e) => {
          const button = e.currentTarget;
          if (next === "cancelled") {
            const ok = await confirmDialog({
              title: `Cancel order #${o.number}?`,
              message: "A cancelled order cannot be reopened.",
              confirmLabel: "Cancel order",
            });
            if (!ok) return;
          }
          await busy(button, async () => {
            try {
              await api("POST", `${base}/${path(o.id)}/status`, { status: next });
            } catch (error) {
              // Usually the order moved elsewhere meanwhile (409): show where it really is now.
              await list.reload().catch(() => {});
              throw error;
            }
            toast(`Order #${o.number} is ${next}`);
            await list.reload();
          });
        },
      },
      MOVE_LABEL[next],
    );

  const list = pagedTable({
    url: base,
    headers: [
      "Order",
      "Customer",
      "Items",
      ["Total", "num"],
      "Status",
      "Placed",
      ["Next step", "cell-actions"],
    ],
    empty: "No orders yet.",
    row: (o) =>
      h(
        "tr",
        { "data-order": o.number },
        h("td", { class: "strong" }, `#${o.number}`),
        h("td", {}, customerName.get(o.customerId) ?? h("code", {}, o.customerId)),
        h(
          "td",
          { class: "items" },
          h(
            "div",
            {},
            o.lineItems.map((li) => h("div", {}, `${li.quantity} × ${li.title}`)),
          ),
        ),
        h("td", { class: "num" }, money(o.total, o.currency)),
        h("td", {}, badge(o.status)),
        h("td", { class: "date" }, when(o.createdAt)),
        h(
          "td",
          { class: "cell-actions" },
          NEXT_STATUS[o.status]?.length
            ? NEXT_STATUS[o.status].map((next) => moveButton(o, next))
            : h("span", { class: "muted small" }, "Final"),
        ),
      ),
  });
  await list.load();

  const filter = h(
    "select",
    {
      "aria-label": "Show orders with status",
      onchange: (e) => {
        const select = e.currentTarget;
        busy(select, () => list.reload(select.value ? `${base}?status=${select.value}` : base));
      },
    },
    h("option", { value: "" }, "All statuses"),
    Object.keys(NEXT_STATUS).map((s) => h("option", { value: s }, s)),
  );

  return h(
    "div",
    {},
    pageHeader("Orders", "Move each order along: pending → paid → confirmed → shipped → delivered.", filter),
    panel(null, list.element),
    panel("Create an order", orderForm(store, customers.data, products.data, list)),
  );
}

function orderForm(store, customers, products, list) {
  if (!customers.length || !products.length) {
    return emptyState(
      "An order needs a customer and an active product. ",
      !customers.length ? h("a", { href: `#/stores/${store.slug}/customers` }, "Add a customer") : null,
      !customers.length && !products.length ? " · " : null,
      !products.length ? h("a", { href: `#/stores/${store.slug}/products` }, "Add a product") : null,
    );
  }
  const lines = h("div", { class: "order-lines" });
  // Field names follow the API (lineItems.N.productId) so per-field errors land on the right line.
  const renumber = () => {
    [...lines.children].forEach((line, i) => {
      line.querySelector("select").dataset.field = `lineItems.${i}.productId`;
      line.querySelector("input").dataset.field = `lineItems.${i}.quantity`;
      line.querySelector(".remove").hidden = lines.children.length === 1;
    });
  };
  const addLine = () => {
    const productId = uid("p");
    const qtyId = uid("q");
    const line = h(
      "div",
      { class: "line" },
      h(
        "div",
        { class: "line-product" },
        h("label", { for: productId }, "Product"),
        h(
          "select",
          { id: productId },
          products.map((p) =>
            h("option", { value: p.id }, `${p.title} — ${money(p.price, p.currency)} (${p.stock} in stock)`),
          ),
        ),
      ),
      h(
        "div",
        { class: "line-qty" },
        h("label", { for: qtyId }, "Quantity"),
        h("input", { id: qtyId, type: "number", min: 1, max: 10000, step: 1, value: "1", required: true }),
      ),
      h(
        "button",
        {
          type: "button",
          class: "secondary remove",
          "aria-label": "Remove this product",
          onclick: () => {
            line.remove();
            renumber();
          },
        },
        "Remove",
      ),
      h("p", { class: "field-error", hidden: true }),
    );
    lines.append(line);
    renumber();
  };
  addLine();
  return apiForm({
    layout: "stack",
    fields: [
      field("Customer", "customerId", {
        as: "select",
        options: customers.map((c) => [c.id, `${`${c.firstName} ${c.lastName}`.trim()} <${c.email}>`, false]),
      }),
      h(
        "fieldset",
        { class: "lines-fieldset" },
        h("legend", {}, "Products"),
        lines,
        h("button", { type: "button", class: "secondary", onclick: addLine }, "+ Add another product"),
      ),
      field("Note", "note", { maxlength: 2000, placeholder: "Optional, e.g. gift wrap" }),
    ],
    submitLabel: "Place order",
    submit: (v) => {
      const lineItems = [...lines.children].map((line) => ({
        productId: line.querySelector("select").value,
        quantity: Number(line.querySelector("input").value),
      }));
      return api("POST", `/stores/${store.slug}/orders`, {
        customerId: v.customerId,
        lineItems,
        ...(v.note.trim() ? { note: v.note.trim() } : {}),
      });
    },
    done: async (res, formEl) => {
      formEl.reset();
      lines.replaceChildren();
      addLine();
      toast(`Order #${res.data.number} placed: ${money(res.data.total, res.data.currency)}`);
      await list.reload();
    },
  });
}

async function installationsView(store) {
  const { data } = await api("GET", `/stores/${store.slug}/installations`);
  const rows = data.map((i) =>
    h(
      "tr",
      {},
      h("td", { class: "strong" }, i.appName),
      h(
        "td",
        {},
        i.scopes.map((s) => h("code", { class: "scope" }, s)),
      ),
      h("td", { class: "date" }, when(i.installedAt)),
      h(
        "td",
        { class: "cell-actions" },
        dangerButton(
          "Uninstall",
          {
            title: `Uninstall ${i.appName}?`,
            message: "Its access to this store ends at once: every token it holds is revoked.",
            confirmLabel: "Uninstall",
          },
          async () => {
            await api("DELETE", `/stores/${store.slug}/installations/${path(i.clientId)}`);
            toast(`${i.appName} uninstalled`);
            await route();
          },
        ),
      ),
    ),
  );
  return h(
    "div",
    {},
    pageHeader("Installed apps", "Apps you have allowed into this store, and what each may do."),
    panel(
      null,
      data.length
        ? table(["App", "Access", "Installed", ""], rows)
        : emptyState(
            "No app is installed. Apps are installed from their own site, which sends you to a consent page.",
          ),
    ),
  );
}

async function apiKeysView(store) {
  const base = `/stores/${store.slug}/api-keys`;
  const reveal = h("div");
  const listSlot = h("div");

  const renderList = async () => {
    const { data } = await api("GET", base);
    const rows = data.map((k) =>
      h(
        "tr",
        { "data-key": k.keyId },
        h("td", { class: "strong" }, k.name),
        h("td", {}, h("code", {}, k.keyId)),
        h(
          "td",
          {},
          k.scopes.map((s) => h("code", { class: "scope" }, s)),
        ),
        h("td", { class: "date" }, when(k.createdAt)),
        h("td", { class: "date" }, k.lastUsedAt ? when(k.lastUsedAt) : "Never"),
        h(
          "td",
          {},
          k.revokedAt
            ? badge("revoked")
            : k.expiresAt && new Date(k.expiresAt) <= new Date()
              ? badge("expired")
              : k.expiresAt
                ? `Expires ${when(k.expiresAt)}`
                : badge("active"),
        ),
        h(
          "td",
          { class: "cell-actions" },
          k.revokedAt
            ? null
            : dangerButton(
                "Revoke",
                {
                  title: `Revoke ${k.name}?`,
                  message: "Requests signed with this key pair fail from now on. This cannot be undone.",
                  confirmLabel: "Revoke key",
                },
                async () => {
                  await api("DELETE", `${base}/${path(k.keyId)}`);
                  toast("Key pair revoked");
                  await renderList();
                },
              ),
        ),
      ),
    );
    listSlot.replaceChildren(
      data.length
        ? table(["Name", "Key id", "Scopes", "Created", "Last used", "State", ""], rows)
        : emptyState("No key pairs yet."),
    );
  };
  await renderList();

  const showSecret = (key) => {
    reveal.replaceChildren(
      h(
        "section",
        { class: "panel secret-panel", role: "region", "aria-label": "New key pair" },
        h("h2", {}, `Key pair “${key.name}” created`),
        h(
          "p",
          { class: "warning" },
          h("strong", {}, "Copy the secret now. "),
          "This is the only time it is shown: the platform keeps only a hash of it. If it is lost, revoke this key pair and create a new one.",
        ),
        copyBox("Key id (x-api-key)", key.keyId),
        copyBox("Secret (x-api-secret)", key.secret),
        h(
          "p",
          { class: "hint" },
          "Send both headers on every request to ",
          h("code", {}, "/api/v1/developer"),
          ". Keep the secret on a server; never put it in a web page or a mobile app.",
        ),
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            { type: "button", class: "secondary", onclick: () => reveal.replaceChildren() },
            "I have stored the secret",
          ),
        ),
      ),
    );
    reveal.scrollIntoView({ block: "start" });
  };

  return h(
    "div",
    {},
    pageHeader(
      "API keys",
      "Key pairs let your own scripts read this store through the developer API.",
      h("a", { class: "button secondary", href: "/api/docs/ui" }, "Developer API docs"),
    ),
    reveal,
    panel(null, listSlot),
    panel(
      "Create a key pair",
      apiForm({
        layout: "stack",
        fields: [
          field("Key name", "name", {
            required: true,
            maxlength: 100,
            placeholder: "Nightly catalogue export",
          }),
          scopeChecks(
            "Scopes",
            "Grant the minimum the integration needs. A catalogue export needs only “Read products”; add more only when a tool must do more. A leaked key can do only what its scopes allow.",
            KEY_SCOPES,
          ),
          field(
            "Expires",
            "expiresAt",
            { type: "datetime-local" },
            "Optional. Without an expiry the key pair works until you revoke it.",
          ),
        ],
        submitLabel: "Create key pair",
        submit: (v, f) => {
          const scopes = [...f.querySelectorAll("input[name=scope]:checked")].map((c) => c.value);
          if (!scopes.length) {
            throw new ApiError(
              {
                error: {
                  code: "VALIDATION_FAILED",
                  message: "Pick at least one scope.",
                  details: [{ field: "scopes", message: "pick at least one" }],
                },
              },
              400,
            );
          }
          return api("POST", base, {
            name: v.name.trim(),
            scopes,
            ...(v.expiresAt ? { expiresAt: new Date(v.expiresAt).toISOString() } : {}),
          });
        },
        done: async (res, formEl) => {
          formEl.reset();
          showSecret(res.data);
          await renderList();
        },
      }),
    ),
  );
}

// ---- route table --------------------------------------------------------------------------------

/** Sections of one store: each is a sidebar link and a route /stores/{slug}/{key}. */
const STORE_SECTIONS = [
  { key: "products", label: "Products", view: productsView },
  { key: "customers", label: "Customers", view: customersView },
  { key: "orders", label: "Orders", view: ordersView },
  { key: "apps", label: "Installed apps", view: installationsView },
  { key: "api-keys", label: "API keys", view: apiKeysView },
];

const HOME = { pattern: /^\/$/, title: "Stores", view: storesView };

/** Account-level pages. `public` pages are shown signed out; the rest need a session. */
const ROUTES = [
  { pattern: /^\/login$/, public: true, view: () => authView("login") },
  { pattern: /^\/signup$/, public: true, view: () => authView("signup") },
  HOME,
  { pattern: /^\/account$/, title: "Account", view: accountView },
  { pattern: /^\/apps$/, title: "My apps", view: appsView },
  { pattern: /^\/apps\/(mpc_[A-Za-z0-9]{1,64})$/, title: "Deliveries", view: (id) => deliveriesView(id) },
  {
    pattern: /^\/stores\/([a-z0-9][a-z0-9-]{1,46}[a-z0-9])\/([a-z-]+)$/,
    view: async (slug, key) => {
      const section = STORE_SECTIONS.find((s) => s.key === key);
      if (!section) throw new ApiError({ error: { code: "NOT_FOUND", message: "No such page." } }, 404);
      const { data: store } = await api("GET", `/stores/${slug}`);
      setCurrentStore(store.slug);
      // Opened in another tab since the list was loaded: refresh it so the sidebar can show it.
      if (!session.stores?.some((s) => s.slug === store.slug)) await loadStores();
      document.title = `${section.label} · ${store.name}`;
      return section.view(store);
    },
    section: (slug, key) => ({ slug, key }),
  },
];

// ---- shell and router ---------------------------------------------------------------------------

const root = document.getElementById("root");

function sidebar(active) {
  const stores = session.stores ?? [];
  const slug = session.currentSlug;
  const store = stores.find((s) => s.slug === slug);
  const link = (href, label, isActive) =>
    h("a", { href, class: isActive ? "active" : null, "aria-current": isActive ? "page" : null }, label);

  const switcher = stores.length
    ? h(
        "div",
        { class: "switcher" },
        h("label", { for: "store-switcher" }, "Store"),
        h(
          "select",
          {
            id: "store-switcher",
            onchange: (e) => {
              location.hash = `#/stores/${e.currentTarget.value}/${active.key ?? "products"}`;
            },
          },
          stores.map((s) => h("option", { value: s.slug, selected: s.slug === slug }, s.name)),
        ),
      )
    : null;

  return h(
    "aside",
    { class: "sidebar", id: "sidebar" },
    h(
      "div",
      { class: "sidebar-top" },
      h(
        "a",
        { class: "brand", href: "#/" },
        h("span", { class: "logo", "aria-hidden": "true" }, "M"),
        "Merchant",
      ),
      h(
        "button",
        {
          type: "button",
          class: "menu-toggle",
          "aria-controls": "sidebar-nav",
          "aria-expanded": "false",
          onclick: (e) => {
            const open = e.currentTarget.getAttribute("aria-expanded") !== "true";
            e.currentTarget.setAttribute("aria-expanded", String(open));
            document.getElementById("sidebar").classList.toggle("open", open);
          },
        },
        "Menu",
      ),
    ),
    h(
      "nav",
      { id: "sidebar-nav", "aria-label": "Main" },
      switcher,
      store
        ? h(
            "div",
            { class: "nav-group" },
            STORE_SECTIONS.map((s) =>
              link(
                `#/stores/${store.slug}/${s.key}`,
                s.label,
                active.slug === store.slug && active.key === s.key,
              ),
            ),
          )
        : null,
      h(
        "div",
        { class: "nav-group" },
        h("p", { class: "nav-title" }, "Account"),
        link("#/", "All stores", active.path === "/"),
        link("#/apps", "My apps", active.path?.startsWith("/apps")),
        link("#/account", "Account", active.path === "/account"),
        h("a", { href: "/api/docs/ui" }, "API docs"),
      ),
      h(
        "div",
        { class: "nav-footer" },
        h("span", { class: "who", title: session.me.email }, session.me.name || session.me.email),
        h("span", { class: "who-email" }, session.me.email),
        h("button", { type: "button", class: "secondary small", onclick: logOut }, "Log out"),
      ),
    ),
  );
}

let routeSeq = 0;

/** Renders the page for location.hash. Only the latest navigation may write to the page. */
async function route() {
  const seq = ++routeSeq;
  const current = location.hash.replace(/^#/, "") || "/";
  if (!session.known) {
    try {
      session.me = (await api("GET", "/me")).data;
    } catch {
      session.me = null;
    }
    session.known = true;
  }
  if (seq !== routeSeq) return;

  let match = null;
  let entry = ROUTES.find((r) => {
    match = r.pattern.exec(current);
    return match;
  });
  if (!entry) {
    entry = HOME;
    match = [];
  }
  const params = match.slice(1);

  if (entry.public) {
    if (session.me) {
      location.hash = "#/";
      return;
    }
    // Already on this form (a repeated hashchange): keep what the merchant has typed.
    if (root.dataset.view === current) return;
    root.className = "signed-out";
    root.dataset.view = current;
    root.replaceChildren(h("main", { id: "view" }, entry.view(...params)));
    return;
  }
  if (!session.me) {
    location.hash = "#/login";
    return;
  }

  const active = entry.section ? entry.section(...params) : { path: current };
  let view;
  try {
    if (!session.stores) await loadStores();
    if (entry.title) document.title = `${entry.title} · Merchant Platform`;
    view = await entry.view(...params);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      sessionExpired();
      return;
    }
    view = h(
      "div",
      {},
      pageHeader(error.status === 404 ? "Not found" : "Something went wrong"),
      errorBox(error),
      h("p", {}, h("a", { href: "#/" }, "Back to your stores")),
    );
  }
  if (seq !== routeSeq) return;
  root.className = "signed-in";
  root.dataset.view = current;
  root.replaceChildren(
    sidebar(active),
    h("main", { class: "content" }, h("div", { id: "flash" }), h("div", { id: "view" }, view)),
  );
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
