import type { ServerResponse } from "node:http";

/** Text made safe inside an element or a double-quoted attribute. */
export function html(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Hidden inputs carrying `fields` in a form. */
export function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${html(name)}" value="${html(value)}">`)
    .join("");
}

/** A page; `refresh` reloads it every 5 s (only a page without a form to fill in). */
export function page(title: string, body: string, refresh = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(title)}</title>
${refresh ? '<meta http-equiv="refresh" content="5">' : ""}
<style>body{font:15px system-ui;margin:2rem;max-width:70rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}form.inline{display:inline}input[type=number]{width:5em}iframe{border:0;width:100%;height:24rem}</style>
</head><body><h1>${html(title)}</h1>${body}</body></html>`;
}

/**
 * Sends a page. Its buttons ship, refund and approve, so no other site may frame it (a framed page
 * can be clicked through an invisible overlay; the same-origin check does not see that).
 */
export function sendPage(res: ServerResponse, status: number, body: string): void {
  res
    .writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "frame-ancestors 'self'",
    })
    .end(body);
}
