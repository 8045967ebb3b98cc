/**
 * The authorization endpoint's own page: the error shown (never redirected) for a request whose
 * client or redirect URI cannot be trusted. Every value is escaped. The consent itself is a page of
 * the dashboard (web/src/pages/consent.tsx).
 */
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
