// The merchant dashboard: a small single-page app over /api/v1/dashboard. No framework and no
// build step. User data only ever reaches the page through textContent (the h() helper), never
// through innerHTML.

const API = "/api/v1/dashboard";
const main = document.getElementById("main");
const nav = document.getElementById("nav");
let me = null;

/** Creates an element: h("button", { class: "primary", onclick }, "Save"). Strings become text nodes. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

class ApiError extends Error {
  constructor(body, status) {
    super(body?.message || `Request failed (${status})`);
    this.body = body;
    this.status = status;
  }
}

/** Calls the dashboard API; state-changing requests send JSON (the server requires it, as a CSRF guard). */
async function api(method, path, body) {
  const res = await fetch(`${API}${path}`, {
    method,
    credentials: "same-origin",
    headers: method === "GET" ? {} : { "content-type": "application/json" },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok || json.success === false) throw new ApiError(json, res.status);
  return json;
}

function errorBox(error) {
  const details = Array.isArray(error?.body?.error?.details) ? error.body.error.details : [];
  return h(
    "div",
    { class: "error", role: "alert" },
    error.message,
    details.length
      ? h(
          "ul",
          {},
          details.map((d) => h("li", {}, `${d.field}: ${d.message}`)),
        )
      : null,
  );
}

function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.hidden = true;
  }, 2500);
}

/** A form whose submit calls `action(values)`; errors show in the form, success calls `done`. */
function form(fields, submitLabel, action, done, attrs = { class: "grid" }) {
  const out = h("div");
  const f = h(
    "form",
    attrs,
    fields,
    h("div", {}, h("button", { class: "primary", type: "submit" }, submitLabel)),
  );
  f.addEventListener("submit", async (event) => {
    event.preventDefault();
    out.replaceChildren();
    const button = f.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const result = await action(Object.fromEntries(new FormData(f)), f);
      await done(result, f);
    } catch (error) {
      out.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  });
  return h("div", {}, f, out);
}

function field(label, name, attrs = {}) {
  return h("label", {}, label, h("input", { name, ...attrs }));
}

function badge(text) {
  return h("span", { class: `badge ${text}` }, text);
}

function when(iso) {
  return new Date(iso).toLocaleString();
}

function renderNav() {
  nav.replaceChildren(
    ...(me
      ? [
          h("a", { href: "#/" }, "Stores"),
          h("a", { href: "#/apps" }, "My apps"),
          h("a", { href: "/api/docs/ui" }, "API docs"),
          h("span", { class: "who" }, me.email),
          h(
            "button",
            {
              onclick: async () => {
                await api("POST", "/auth/logout").catch(() => {});
                me = null;
                location.hash = "#/login";
              },
            },
            "Log out",
          ),
        ]
      : [h("a", { href: "/api/docs/ui" }, "API docs")]),
  );
}

// ---- views --------------------------------------------------------------------------------------

function loginView() {
  let mode = "login";
  const box = h("div", { class: "panel narrow" });
  const draw = () => {
    const signup = mode === "signup";
    box.replaceChildren(
      h("h1", {}, signup ? "Create your merchant account" : "Log in"),
      form(
        [
          signup
            ? field("Your name", "name", { required: true, maxlength: 100, autocomplete: "name" })
            : null,
          field("E-mail", "email", { type: "email", required: true, autocomplete: "username" }),
          field("Password", "password", {
            type: "password",
            required: true,
            minlength: signup ? 10 : 1,
            autocomplete: signup ? "new-password" : "current-password",
          }),
        ],
        signup ? "Create account" : "Log in",
        (v) => api("POST", signup ? "/auth/signup" : "/auth/login", v),
        (res) => {
          me = res.data;
          location.hash = "#/";
        },
        { class: "lines" },
      ),
      h(
        "p",
        { class: "muted" },
        signup ? "Already have an account? " : "New here? ",
        h(
          "a",
          {
            href: "#",
            onclick: (e) => {
              e.preventDefault();
              mode = signup ? "login" : "signup";
              draw();
            },
          },
          signup ? "Log in" : "Create an account",
        ),
      ),
    );
  };
  draw();
  return box;
}

async function storesView() {
  const { data: stores } = await api("GET", "/stores");
  const list = stores.length
    ? h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "Store"),
            h("th", {}, "Slug"),
            h("th", {}, "Currency"),
            h("th", {}, "Created"),
          ),
        ),
        h(
          "tbody",
          {},
          stores.map((s) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#/stores/${s.slug}/products` }, s.name)),
              h("td", {}, s.slug),
              h("td", {}, s.currency),
              h("td", {}, when(s.createdAt)),
            ),
          ),
        ),
      )
    : h("p", { class: "empty" }, "You have no store yet. Create one below.");
  return h(
    "div",
    {},
    h("h1", {}, "Your stores"),
    h("div", { class: "panel" }, list),
    h(
      "div",
      { class: "panel" },
      h("h2", {}, "New store"),
      form(
        [
          field("Name", "name", { required: true, maxlength: 100 }),
          field("Slug (used in URLs)", "slug", {
            required: true,
            pattern: "[a-z0-9][a-z0-9\\-]{1,46}[a-z0-9]",
            placeholder: "my-store",
          }),
          field("Currency", "currency", { required: true, value: "USD", pattern: "[A-Z]{3}", maxlength: 3 }),
        ],
        "Create store",
        (v) => api("POST", "/stores", v),
        (res) => {
          location.hash = `#/stores/${res.data.slug}/products`;
        },
      ),
    ),
  );
}

const TABS = [
  ["products", "Products"],
  ["customers", "Customers"],
  ["orders", "Orders"],
  ["apps", "Installed apps"],
  ["api-keys", "API keys"],
];

async function storeView(slug, tab) {
  const { data: store } = await api("GET", `/stores/${slug}`);
  const views = {
    products: productsTab,
    customers: customersTab,
    orders: ordersTab,
    apps: installationsTab,
    "api-keys": apiKeysTab,
  };
  const body = await (views[tab] ?? productsTab)(store);
  return h(
    "div",
    {},
    h("h1", {}, store.name, " ", h("span", { class: "muted" }, `(${store.slug}, ${store.currency})`)),
    h(
      "nav",
      { class: "tabs" },
      TABS.map(([key, label]) =>
        h("a", { href: `#/stores/${slug}/${key}`, class: key === tab ? "active" : null }, label),
      ),
    ),
    body,
  );
}

/** A cursor-paginated table with a "Load more" button. */
function pagedTable(path, headers, row) {
  const tbody = h("tbody");
  const more = h("button", {}, "Load more");
  const wrap = h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headers.map((x) => h("th", {}, x)),
        ),
      ),
      tbody,
    ),
    h("div", { class: "row" }, more),
  );
  let cursor = null;
  const load = async () => {
    const res = await api(
      "GET",
      `${path}${path.includes("?") ? "&" : "?"}limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    for (const item of res.data) tbody.append(row(item));
    if (!tbody.children.length)
      tbody.append(h("tr", {}, h("td", { colspan: headers.length, class: "empty" }, "Nothing here yet.")));
    cursor = res.meta.nextCursor;
    more.hidden = !cursor;
  };
  more.addEventListener("click", load);
  return { element: wrap, load };
}

async function productsTab(store) {
  const base = `/stores/${store.slug}/products`;
  const editor = h("div");
  const table = pagedTable(base, ["Title", "SKU", "Status", "Stock", "Price", ""], (p) =>
    h(
      "tr",
      {},
      h("td", {}, p.title),
      h("td", {}, p.sku ?? "—"),
      h("td", {}, badge(p.status)),
      h("td", { class: "num" }, p.stock),
      h("td", { class: "num" }, `${p.price} ${p.currency}`),
      h(
        "td",
        { class: "row" },
        h("button", { onclick: () => editor.replaceChildren(productEditor(store, p)) }, "Edit"),
        h(
          "button",
          {
            class: "danger",
            onclick: async () => {
              if (!confirm(`Delete "${p.title}"? Orders keep their copy of it.`)) return;
              await api("DELETE", `${base}/${p.id}`);
              toast("Product deleted");
              route();
            },
          },
          "Delete",
        ),
      ),
    ),
  );
  await table.load();
  return h(
    "div",
    {},
    h("div", { class: "panel" }, table.element),
    editor,
    h("div", { class: "panel" }, h("h2", {}, "New product"), productForm(store, null)),
  );
}

function productForm(store, product) {
  const base = `/stores/${store.slug}/products`;
  return form(
    [
      field("Title", "title", { required: true, maxlength: 255, value: product?.title }),
      field(`Price (${store.currency})`, "price", {
        required: true,
        inputmode: "decimal",
        pattern: "\\d+(\\.\\d{1,3})?",
        value: product?.price,
      }),
      field("SKU", "sku", { maxlength: 64, value: product?.sku ?? "" }),
      field("Stock", "stock", { type: "number", min: 0, step: 1, value: product?.stock ?? 0 }),
      h(
        "label",
        {},
        "Status",
        h(
          "select",
          { name: "status" },
          ["active", "draft", "archived"].map((s) =>
            h("option", { value: s, selected: (product?.status ?? "active") === s }, s),
          ),
        ),
      ),
      h(
        "label",
        {},
        "Description",
        h("textarea", { name: "description", maxlength: 10000, rows: 2 }, product?.description ?? ""),
      ),
    ],
    product ? "Save changes" : "Create product",
    (v) => {
      const body = {
        title: v.title,
        price: v.price,
        stock: Number(v.stock || 0),
        status: v.status,
        description: v.description,
        sku: v.sku || null,
      };
      return product ? api("PATCH", `${base}/${product.id}`, body) : api("POST", base, body);
    },
    () => {
      toast(product ? "Product saved" : "Product created");
      route();
    },
  );
}

function productEditor(store, product) {
  return h("div", { class: "panel" }, h("h2", {}, `Edit ${product.title}`), productForm(store, product));
}

async function customersTab(store) {
  const base = `/stores/${store.slug}/customers`;
  const table = pagedTable(base, ["Name", "E-mail", "Phone", "Since"], (c) =>
    h(
      "tr",
      {},
      h("td", {}, `${c.firstName} ${c.lastName}`.trim()),
      h("td", {}, c.email),
      h("td", {}, c.phone ?? "—"),
      h("td", {}, when(c.createdAt)),
    ),
  );
  await table.load();
  return h(
    "div",
    {},
    h("div", { class: "panel" }, table.element),
    h(
      "div",
      { class: "panel" },
      h("h2", {}, "New customer"),
      form(
        [
          field("First name", "firstName", { required: true, maxlength: 100 }),
          field("Last name", "lastName", { maxlength: 100 }),
          field("E-mail", "email", { type: "email", required: true }),
          field("Phone", "phone", { maxlength: 32 }),
        ],
        "Add customer",
        (v) => api("POST", base, { ...v, phone: v.phone || null }),
        () => {
          toast("Customer added");
          route();
        },
      ),
    ),
  );
}

const NEXT_STATUS = {
  pending: ["paid", "cancelled"],
  paid: ["confirmed", "cancelled"],
  confirmed: ["shipped", "cancelled"],
  shipped: ["delivered"],
  delivered: [],
  cancelled: [],
};

async function ordersTab(store) {
  const base = `/stores/${store.slug}/orders`;
  const table = pagedTable(base, ["Order", "Status", "Items", "Total", "Placed", "Move to"], (o) =>
    h(
      "tr",
      { "data-order": o.id },
      h("td", {}, `#${o.number}`),
      h("td", {}, badge(o.status)),
      h(
        "td",
        {},
        o.lineItems.map((li) => h("div", {}, `${li.quantity} × ${li.title}`)),
      ),
      h("td", { class: "num" }, `${o.total} ${o.currency}`),
      h("td", {}, when(o.createdAt)),
      h(
        "td",
        { class: "row" },
        NEXT_STATUS[o.status].map((next) =>
          h(
            "button",
            {
              class: next === "cancelled" ? "danger" : null,
              onclick: async (event) => {
                event.target.disabled = true;
                try {
                  await api("POST", `${base}/${o.id}/status`, { status: next });
                  toast(`Order #${o.number} is ${next}`);
                  route();
                } catch (error) {
                  event.target.disabled = false;
                  alert(error.message);
                }
              },
            },
            next === "cancelled" ? "Cancel" : `Mark ${next}`,
          ),
        ),
      ),
    ),
  );
  await table.load();
  const [customers, products] = await Promise.all([
    api("GET", `/stores/${store.slug}/customers?limit=250`),
    api("GET", `/stores/${store.slug}/products?limit=250&status=active`),
  ]);
  const lines = h("div", { class: "lines" });
  const addLine = () =>
    lines.append(
      h(
        "div",
        { class: "row line" },
        h(
          "select",
          { name: "productId" },
          products.data.map((p) =>
            h("option", { value: p.id }, `${p.title} — ${p.price} ${p.currency} (${p.stock} in stock)`),
          ),
        ),
        h("input", {
          name: "quantity",
          type: "number",
          min: 1,
          value: 1,
          class: "qty",
          "aria-label": "Quantity",
        }),
      ),
    );
  if (products.data.length) addLine();
  const create =
    customers.data.length && products.data.length
      ? form(
          [
            h(
              "label",
              {},
              "Customer",
              h(
                "select",
                { name: "customerId" },
                customers.data.map((c) =>
                  h("option", { value: c.id }, `${c.firstName} ${c.lastName} <${c.email}>`),
                ),
              ),
            ),
            h("div", {}, lines, h("button", { type: "button", onclick: addLine }, "+ Add a product")),
            field("Note", "note", { maxlength: 2000 }),
          ],
          "Place order",
          (v, f) => {
            const lineItems = [...f.querySelectorAll(".line")].map((line) => ({
              productId: line.querySelector("select").value,
              quantity: Number(line.querySelector("input").value),
            }));
            return api("POST", base, { customerId: v.customerId, lineItems, note: v.note || undefined });
          },
          (res) => {
            toast(`Order #${res.data.number} placed: ${res.data.total} ${res.data.currency}`);
            route();
          },
          { class: "lines" },
        )
      : h("p", { class: "empty" }, "Add a customer and an active product first.");
  return h(
    "div",
    {},
    h("div", { class: "panel" }, table.element),
    h("div", { class: "panel" }, h("h2", {}, "New order"), create),
  );
}

async function installationsTab(store) {
  const { data } = await api("GET", `/stores/${store.slug}/installations`);
  const rows = data.map((i) =>
    h(
      "tr",
      {},
      h("td", {}, i.appName),
      h("td", {}, i.scopes.join(", ")),
      h("td", {}, when(i.installedAt)),
      h(
        "td",
        {},
        h(
          "button",
          {
            class: "danger",
            onclick: async () => {
              if (!confirm(`Uninstall ${i.appName}? Its access to this store ends at once.`)) return;
              await api("DELETE", `/stores/${store.slug}/installations/${i.clientId}`);
              toast(`${i.appName} uninstalled`);
              route();
            },
          },
          "Uninstall",
        ),
      ),
    ),
  );
  return h(
    "div",
    { class: "panel" },
    data.length
      ? h(
          "table",
          {},
          h(
            "thead",
            {},
            h("tr", {}, h("th", {}, "App"), h("th", {}, "Access"), h("th", {}, "Installed"), h("th", {}, "")),
          ),
          h("tbody", {}, rows),
        )
      : h(
          "p",
          { class: "empty" },
          "No app is installed. Apps are installed from their own site, which sends you to a consent page.",
        ),
  );
}

const KEY_SCOPES = [
  ["read_products", "Read products"],
  ["write_products", "Create, change and delete products"],
  ["read_orders", "Read orders"],
  ["read_customers", "Read customers"],
];

async function apiKeysTab(store) {
  const base = `/stores/${store.slug}/api-keys`;
  const { data } = await api("GET", base);
  const reveal = h("div");
  const rows = data.map((k) =>
    h(
      "tr",
      {},
      h("td", {}, k.name),
      h("td", {}, h("code", {}, k.keyId)),
      h("td", {}, k.scopes.join(", ")),
      h("td", {}, k.lastUsedAt ? when(k.lastUsedAt) : "never"),
      h(
        "td",
        {},
        k.revokedAt ? badge("revoked") : k.expiresAt ? `expires ${when(k.expiresAt)}` : "no expiry",
      ),
      h(
        "td",
        {},
        k.revokedAt
          ? null
          : h(
              "button",
              {
                class: "danger",
                onclick: async () => {
                  if (!confirm(`Revoke "${k.name}"? Requests with it fail at once.`)) return;
                  await api("DELETE", `${base}/${k.keyId}`);
                  toast("Key revoked");
                  route();
                },
              },
              "Revoke",
            ),
      ),
    ),
  );
  return h(
    "div",
    {},
    reveal,
    h(
      "div",
      { class: "panel" },
      data.length
        ? h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              {},
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ["Name", "Key id", "Scopes", "Last used", "State", ""].map((x) => h("th", {}, x)),
                ),
              ),
              h("tbody", {}, rows),
            ),
          )
        : h("p", { class: "empty" }, "No key pairs yet."),
    ),
    h(
      "div",
      { class: "panel" },
      h("h2", {}, "New key pair"),
      h(
        "p",
        { class: "muted" },
        "Grant only what the integration needs: a catalogue export needs nothing but “Read products”.",
      ),
      form(
        [
          field("Name", "name", { required: true, maxlength: 100, placeholder: "Nightly export" }),
          h(
            "fieldset",
            { class: "lines" },
            h("legend", { class: "muted" }, "Scopes"),
            KEY_SCOPES.map(([value, label]) =>
              h("label", { class: "row" }, h("input", { type: "checkbox", name: "scope", value }), label),
            ),
          ),
          field("Expires (optional)", "expiresAt", { type: "datetime-local" }),
        ],
        "Create key pair",
        (v, f) => {
          const scopes = [...f.querySelectorAll("input[name=scope]:checked")].map((c) => c.value);
          return api("POST", base, {
            name: v.name,
            scopes,
            expiresAt: v.expiresAt ? new Date(v.expiresAt).toISOString() : undefined,
          });
        },
        (res) => {
          reveal.replaceChildren(
            h(
              "div",
              { class: "panel" },
              h("h2", {}, "Copy your secret now"),
              h("p", {}, "This is the only time the secret is shown. Send both headers on every request."),
              h("div", { class: "secret", "data-testid": "key-id" }, `x-api-key: ${res.data.keyId}`),
              h("div", { class: "secret", "data-testid": "key-secret" }, `x-api-secret: ${res.data.secret}`),
              h(
                "button",
                {
                  onclick: () =>
                    navigator.clipboard?.writeText(res.data.secret).then(() => toast("Secret copied")),
                },
                "Copy secret",
              ),
            ),
          );
          window.scrollTo(0, 0);
        },
        { class: "lines" },
      ),
    ),
  );
}

async function appsView() {
  const { data: apps } = await api("GET", "/apps");
  const reveal = h("div");
  const rows = apps.map((a) =>
    h(
      "tr",
      {},
      h("td", {}, h("a", { href: `#/apps/${a.clientId}` }, a.name)),
      h("td", {}, h("code", {}, a.clientId)),
      h("td", {}, a.scopes.join(", ")),
      h(
        "td",
        {},
        h(
          "button",
          {
            onclick: async () => {
              if (!confirm("Rotate the client secret? The current secret stops working at once.")) return;
              const res = await api("POST", `/apps/${a.clientId}/secret`);
              reveal.replaceChildren(
                h(
                  "div",
                  { class: "panel" },
                  h("h2", {}, "New client secret (shown once)"),
                  h("div", { class: "secret" }, res.data.clientSecret),
                ),
              );
            },
          },
          "Rotate secret",
        ),
      ),
    ),
  );
  return h(
    "div",
    {},
    h("h1", {}, "My apps"),
    reveal,
    h(
      "div",
      { class: "panel" },
      apps.length
        ? h(
            "table",
            {},
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["App", "Client id", "Scopes", ""].map((x) => h("th", {}, x)),
              ),
            ),
            h("tbody", {}, rows),
          )
        : h("p", { class: "empty" }, "You have not registered an app."),
    ),
    h(
      "div",
      { class: "panel" },
      h("h2", {}, "Register an app"),
      form(
        [
          field("Name", "name", { required: true, maxlength: 100 }),
          field("Redirect URI (https)", "redirectUri", {
            required: true,
            type: "url",
            placeholder: "https://app.example.com/callback",
          }),
          h(
            "fieldset",
            { class: "lines" },
            h("legend", { class: "muted" }, "Scopes the app may ask for"),
            ["read_products", "write_products", "read_orders", "read_customers", "manage_webhooks"].map((s) =>
              h("label", { class: "row" }, h("input", { type: "checkbox", name: "scope", value: s }), s),
            ),
          ),
        ],
        "Register",
        (v, f) =>
          api("POST", "/apps", {
            name: v.name,
            redirectUris: [v.redirectUri],
            scopes: [...f.querySelectorAll("input[name=scope]:checked")].map((c) => c.value),
          }),
        (res) => {
          reveal.replaceChildren(
            h(
              "div",
              { class: "panel" },
              h("h2", {}, "Your app credentials"),
              h("p", {}, "The secret is shown only now; only its hash is stored."),
              h("div", { class: "secret" }, `client_id: ${res.data.clientId}`),
              h("div", { class: "secret" }, `client_secret: ${res.data.clientSecret}`),
            ),
          );
        },
        { class: "lines" },
      ),
    ),
  );
}

async function deliveriesView(clientId) {
  const { data: app } = await api("GET", `/apps/${clientId}`);
  const { data } = await api("GET", `/apps/${clientId}/deliveries?limit=50`);
  return h(
    "div",
    {},
    h("h1", {}, `${app.name}: webhook deliveries`),
    h(
      "div",
      { class: "panel table-wrap" },
      data.length
        ? h(
            "table",
            {},
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["Event", "Store", "Status", "Attempts", "Last answer", "Created", ""].map((x) =>
                  h("th", {}, x),
                ),
              ),
            ),
            h(
              "tbody",
              {},
              data.map((d) =>
                h(
                  "tr",
                  {},
                  h("td", {}, d.eventName),
                  h("td", {}, d.storeSlug),
                  h("td", {}, badge(d.status)),
                  h("td", { class: "num" }, d.attempts),
                  h("td", {}, d.lastStatusCode ?? d.lastError ?? "—"),
                  h("td", {}, when(d.createdAt)),
                  h(
                    "td",
                    {},
                    h(
                      "button",
                      {
                        onclick: async () => {
                          try {
                            await api("POST", `/apps/${clientId}/deliveries/${d.id}/redeliver`);
                            toast("Queued again");
                            route();
                          } catch (error) {
                            alert(error.message);
                          }
                        },
                      },
                      "Redeliver",
                    ),
                  ),
                ),
              ),
            ),
          )
        : h("p", { class: "empty" }, "No deliveries yet."),
    ),
  );
}

// ---- router -------------------------------------------------------------------------------------

async function route() {
  const path = location.hash.replace(/^#/, "") || "/";
  if (!me) {
    try {
      me = (await api("GET", "/me")).data;
    } catch {
      me = null;
    }
  }
  renderNav();
  if (!me && path !== "/login") {
    location.hash = "#/login";
    return;
  }
  let view;
  try {
    const store = /^\/stores\/([a-z0-9-]+)(?:\/([a-z-]+))?$/.exec(path);
    const appDeliveries = /^\/apps\/([A-Za-z0-9_]+)$/.exec(path);
    if (path === "/login") view = me ? await storesView() : loginView();
    else if (store) view = await storeView(store[1], store[2] ?? "products");
    else if (path === "/apps") view = await appsView();
    else if (appDeliveries) view = await deliveriesView(appDeliveries[1]);
    else view = await storesView();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      me = null;
      location.hash = "#/login";
      return;
    }
    view = h("div", { class: "panel" }, errorBox(error));
  }
  main.replaceChildren(view);
}

window.addEventListener("hashchange", route);
route();
