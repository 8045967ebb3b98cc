import { GRANTABLE_SCOPES, type Scope } from "../../contracts/scopes.ts";

/** Server-rendered consent pages. Every value is escaped; the script runs under a per-response nonce. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; background: #f4f5f7; color: #1f2328; }
  main { max-width: 460px; margin: 48px auto; background: #fff; border-radius: 12px; padding: 32px;
         box-shadow: 0 1px 3px rgba(0,0,0,.08), 0 8px 24px rgba(0,0,0,.06); }
  h1 { font-size: 1.3rem; margin: 0 0 8px; } p { line-height: 1.5; }
  ul { padding-left: 20px; } li { margin: 6px 0; } code { background: #f0f1f3; padding: 1px 5px; border-radius: 4px; }
  label { display: block; font-weight: 600; margin: 16px 0 6px; }
  select, input { width: 100%; box-sizing: border-box; padding: 9px 10px; border: 1px solid #c9ccd1; border-radius: 8px; font: inherit; }
  .actions { display: flex; gap: 12px; margin-top: 24px; }
  button { flex: 1; padding: 10px 14px; border-radius: 8px; border: 1px solid #c9ccd1; background: #fff; font: inherit; cursor: pointer; }
  button.primary { background: #1a7f37; border-color: #1a7f37; color: #fff; font-weight: 600; }
  .error { color: #b42318; } .muted { color: #59636e; font-size: .9rem; }
`;

function page(title: string, body: string, nonce: string, script = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main>${script ? `<script nonce="${nonce}">${script}</script>` : ""}</body></html>`;
}

export function errorPage(message: string, nonce: string): string {
  return page(
    "Cannot authorize this app",
    `<h1>Cannot authorize this app</h1><p class="error">${escapeHtml(message)}</p>
     <p class="muted">The link that brought you here is not valid. You have not been sent back to the app.</p>`,
    nonce,
  );
}

export function loginPage(nonce: string): string {
  return page(
    "Log in to continue",
    `<h1>Log in to continue</h1><p>An app is asking to connect to your store. Log in to review its request.</p>
     <form id="login"><label for="email">E-mail</label><input id="email" type="email" autocomplete="username" required>
     <label for="password">Password</label><input id="password" type="password" autocomplete="current-password" required>
     <p id="msg" class="error" role="alert"></p><div class="actions"><button class="primary" type="submit">Log in</button></div></form>`,
    nonce,
    `document.getElementById("login").addEventListener("submit", async (e) => {
       e.preventDefault();
       const res = await fetch("/api/v1/dashboard/auth/login", { method: "POST", headers: { "content-type": "application/json" },
         body: JSON.stringify({ email: document.getElementById("email").value, password: document.getElementById("password").value }) });
       if (res.ok) { location.reload(); return; }
       const body = await res.json().catch(() => ({}));
       document.getElementById("msg").textContent = body.message || "Login failed.";
     });`,
  );
}

export interface ConsentView {
  appName: string;
  scopes: Scope[];
  stores: Array<{ slug: string; name: string }>;
  preselect?: string | undefined;
  /** The decision request, minus store and approve, sent back by the page as is. */
  request: Record<string, string | string[] | undefined>;
}

export function consentPage(view: ConsentView, nonce: string): string {
  const scopes = view.scopes
    .map(
      (s) =>
        `<li>${escapeHtml(GRANTABLE_SCOPES[s].label)} <span class="muted">(<code>${s}</code>)</span></li>`,
    )
    .join("");
  const options = view.stores
    .map(
      (s) =>
        `<option value="${escapeHtml(s.slug)}"${s.slug === view.preselect ? " selected" : ""}>${escapeHtml(s.name)} (${escapeHtml(s.slug)})</option>`,
    )
    .join("");
  const body = view.stores.length
    ? `<h1>Install ${escapeHtml(view.appName)}?</h1>
       <p><strong>${escapeHtml(view.appName)}</strong> is asking to:</p><ul>${scopes}</ul>
       <label for="store">Install in store</label><select id="store">${options}</select>
       <p class="muted">You can uninstall the app at any time from your dashboard; its access ends at once.</p>
       <p id="msg" class="error" role="alert"></p>
       <div class="actions"><button id="deny" type="button">Deny</button><button id="approve" class="primary" type="button">Approve and install</button></div>`
    : `<h1>No store to install into</h1><p>Create a store in your <a href="/">dashboard</a> first, then open the app's link again.</p>`;
  // JSON in a script is escaped against "</script>" by replacing "<".
  const request = JSON.stringify(view.request).replace(/</g, "\\u003c");
  return page(
    `Install ${view.appName}`,
    body,
    nonce,
    view.stores.length
      ? `const request = ${request};
         async function decide(approve) {
           for (const b of document.querySelectorAll("button")) b.disabled = true;
           const res = await fetch("/api/v1/dashboard/oauth/consent", { method: "POST", headers: { "content-type": "application/json" },
             body: JSON.stringify({ ...request, storeSlug: document.getElementById("store").value, approve }) });
           const body = await res.json().catch(() => ({}));
           if (res.ok && body.data && body.data.redirectTo) { location.assign(body.data.redirectTo); return; }
           document.getElementById("msg").textContent = body.message || "Something went wrong.";
           for (const b of document.querySelectorAll("button")) b.disabled = false;
         }
         document.getElementById("approve").addEventListener("click", () => decide(true));
         document.getElementById("deny").addEventListener("click", () => decide(false));`
      : "",
  );
}
