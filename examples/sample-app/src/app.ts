import { readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AdminClient,
  API_VERSION,
  authorizeUrl,
  createAdminClient,
  createDuplicateFilter,
  createTokenManager,
  exchangeCode,
  handleWebhook,
  PlatformError,
  readCallback,
  type TokenSet,
  type TokenStore,
  unwrap,
  type VerifiedWebhook,
} from "@merchant-platform/sdk";

/**
 * A small Merchant Platform app, built only on the SDK: an install link, the OAuth callback
 * (state + PKCE), token storage (a JSON file), subscriptions to `order.created`, `order.paid` and
 * `app/uninstalled`, a webhook endpoint that verifies and deduplicates, a page of what arrived,
 * fulfilment (a paid order is marked shipped with its carrier and tracking number, and the app
 * keeps its own shipment id on the order as metadata), and clean-up when the app is uninstalled.
 */
export interface SampleConfig {
  platformUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where this app is reached by the merchant's browser: `<publicUrl>/oauth/callback` is its redirect URI. */
  publicUrl: string;
  /**
   * A public https URL of `/webhooks` for real subscriptions (the platform refuses private
   * addresses). Without it the app subscribes nothing and relies on `listen` while you develop.
   */
  webhookUrl?: string;
  /** Signing secrets of `listen` sessions (their output), comma-separated in LISTEN_SECRET. */
  listenSecrets?: string[];
  /** JSON file for tokens and subscription secrets; memory only when absent. */
  dataFile?: string;
  /** Serves `GET /dev/token?store=<slug>` (a current access token) for the CLI's --token-command. Development only. */
  devTokens?: boolean;
}

interface Data {
  tokens: Record<string, TokenSet>;
  /** Subscription secrets by store slug. */
  secrets: Record<string, string[]>;
  /** Paid orders waiting to be shipped, by store slug: what the fulfilment form lists. */
  toShip?: Record<string, Array<{ id: string; name: string; total: string }>>;
}

interface Received {
  at: string;
  event: string;
  store: string;
  deliveryId: string;
  test: boolean;
  summary: string;
  /** The version the body was written at (its `apiVersion`): the subscription's. */
  apiVersion: string;
}

const SCOPES = ["read_orders", "write_orders", "manage_webhooks"];

/** An order's lines as a packer reads them: quantity, product and the variant (size, colour) sold. */
export function itemsOf(
  lines: ReadonlyArray<{ quantity: number; title: string; variantTitle: string | null; sku: string | null }>,
): string {
  return lines
    .map((l) => {
      const variant = l.variantTitle && l.variantTitle !== "Default" ? ` (${l.variantTitle})` : "";
      return `${l.quantity} × ${l.title}${variant}${l.sku ? ` [${l.sku}]` : ""}`;
    })
    .join(", ");
}

/** What a shipment is: the carrier and its tracking number (and where to follow it). */
export interface Shipment {
  carrier: string;
  trackingNumber: string;
  trackingUrl?: string;
}

/**
 * Ships a paid order the way a fulfilment app does: confirms it (orders move one status at a
 * time: paid, confirmed, shipped), marks it shipped with the carrier and tracking number (the
 * merchant's order page shows them, `order.shipped` carries them, the timeline names this app),
 * and keeps this app's own shipment id on the order as metadata (no other app sees it).
 */
export async function shipOrder(admin: AdminClient, orderId: string, shipment: Shipment, shipmentId: string) {
  const path = { params: { path: { id: orderId } } };
  const order = await unwrap(admin.GET("/api/v1/apps/api/orders/{id}", path));
  if (order.status === "paid")
    await unwrap(
      admin.POST("/api/v1/apps/api/orders/{id}/status", { ...path, body: { status: "confirmed" } }),
    );
  await unwrap(
    admin.POST("/api/v1/apps/api/orders/{id}/status", {
      ...path,
      body: { status: "shipped", fulfillment: shipment },
    }),
  );
  return unwrap(admin.PATCH("/api/v1/apps/api/orders/{id}", { ...path, body: { metadata: { shipmentId } } }));
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The development endpoints hand out access tokens and take webhook secrets, so they answer only
 * a local caller that names this machine: the connection comes from loopback (even if HOST was
 * set to listen more widely), the Host header is a loopback name (a DNS-rebinding page has its own
 * name there), and a browser's cross-site form post (its Origin or Sec-Fetch-Site) is refused.
 */
function localDevRequest(req: IncomingMessage): boolean {
  const remote = req.socket.remoteAddress ?? "";
  if (!(remote === "::1" || /^(::ffff:)?127\./.test(remote))) return false;
  let host: string;
  try {
    host = new URL(`http://${req.headers.host ?? ""}`).hostname;
  } catch {
    return false;
  }
  if (!LOOPBACK_NAMES.has(host)) return false;
  const site = req.headers["sec-fetch-site"];
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser's cross-origin request (curl, the CLI)
  try {
    return new URL(origin).host === req.headers.host; // "null" (a sandboxed page) does not parse
  } catch {
    return false;
  }
}

export function createSampleApp(config: SampleConfig) {
  const data: Data = load(config.dataFile);
  const save = () => {
    if (config.dataFile) writeFileSync(config.dataFile, JSON.stringify(data, null, 2), { mode: 0o600 });
  };
  const listenSecrets = new Set(config.listenSecrets ?? []);
  const received: Received[] = [];
  const pending = new Map<string, { verifier: string; expires: number }>();
  const duplicates = createDuplicateFilter();
  const creds = { baseUrl: config.platformUrl, clientId: config.clientId, clientSecret: config.clientSecret };
  const redirectUri = `${config.publicUrl}/oauth/callback`;

  const store: TokenStore = {
    async get(slug) {
      return data.tokens[slug] ?? null;
    },
    async set(slug, tokens) {
      data.tokens[slug] = tokens;
      save();
    },
    async delete(slug) {
      delete data.tokens[slug];
      save();
    },
  };
  const managers = new Map<string, ReturnType<typeof createTokenManager>>();
  const tokensFor = (slug: string) => {
    let manager = managers.get(slug);
    if (!manager) {
      manager = createTokenManager({ ...creds, slug, store });
      managers.set(slug, manager);
    }
    return manager;
  };
  const adminFor = (slug: string) =>
    createAdminClient({ baseUrl: config.platformUrl, tokens: tokensFor(slug) });

  async function onEvent({ event, deliveryId, test }: VerifiedWebhook) {
    const slug = event.store.slug;
    received.unshift({
      at: new Date().toISOString(),
      event: event.event,
      store: slug,
      deliveryId,
      test,
      apiVersion: event.apiVersion,
      summary:
        event.event === "order.created" || event.event === "order.paid"
          ? `order ${event.data.name}, ${event.data.total} ${event.data.currency}: ${itemsOf(event.data.lineItems)}`
          : event.event === "app/uninstalled"
            ? `uninstalled at ${event.data.uninstalledAt}`
            : "",
    });
    received.length = Math.min(received.length, 200);
    if (event.event === "order.paid" && !test) {
      data.toShip ??= {};
      const list = data.toShip[slug] ?? [];
      if (!list.some((o) => o.id === event.data.id))
        data.toShip[slug] = [
          ...list,
          { id: event.data.id, name: event.data.name, total: `${event.data.total} ${event.data.currency}` },
        ].slice(-100);
      save();
    }
    if (event.event === "app/uninstalled" && !test) {
      // The installation is gone: its tokens no longer work and its subscriptions have stopped.
      await store.delete?.(slug);
      delete data.secrets[slug];
      delete data.toShip?.[slug];
      managers.delete(slug);
      save();
    }
  }

  const secrets = () => [...listenSecrets, ...Object.values(data.secrets).flat()];

  async function subscribe(slug: string) {
    if (!config.webhookUrl) return [];
    const admin = adminFor(slug);
    const made: string[] = [];
    for (const eventName of ["order.created", "order.paid", "app/uninstalled"] as const) {
      try {
        const sub = await unwrap(
          // At the version the SDK's types describe (API_VERSION), whatever the app's pin: the
          // bodies are what this code reads.
          admin.POST("/api/v1/apps/api/webhooks", {
            body: { eventName, targetUrl: config.webhookUrl, apiVersion: API_VERSION },
          }),
        );
        made.push(sub.secret);
      } catch (error) {
        // Already subscribed (a reinstall keeps nothing, but a second callback might): keep going.
        if (!(error instanceof PlatformError && error.code === "CONFLICT")) throw error;
      }
    }
    data.secrets[slug] = [...(data.secrets[slug] ?? []), ...made];
    save();
    return made;
  }

  async function handler(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", config.publicUrl);
    try {
      if (req.method === "POST" && url.pathname === "/webhooks") {
        const body = await readBody(req, 1024 * 1024);
        const answer = await handleWebhook({ secret: secrets, duplicates, onEvent }, body, req.headers);
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
        return;
      }
      if (req.method === "POST" && url.pathname === "/ship") {
        // The app's own page posts here; another site's form must not ship a merchant's orders.
        const site = req.headers["sec-fetch-site"];
        if (site && site !== "same-origin") {
          res.writeHead(403, { "content-type": "text/plain" }).end("same-origin requests only\n");
          return;
        }
        const form = new URLSearchParams((await readBody(req, 8192)).toString());
        const slug = form.get("store") ?? "";
        const orderId = form.get("order") ?? "";
        if (!data.tokens[slug]) throw new Error("Not installed in this store.");
        const trackingUrl = form.get("trackingUrl")?.trim();
        await shipOrder(
          adminFor(slug),
          orderId,
          {
            carrier: form.get("carrier")?.trim() || "Unknown carrier",
            trackingNumber: form.get("trackingNumber")?.trim() || "n/a",
            ...(trackingUrl ? { trackingUrl } : {}),
          },
          `shp_${Date.now().toString(36)}`,
        );
        if (data.toShip?.[slug]) data.toShip[slug] = data.toShip[slug].filter((o) => o.id !== orderId);
        save();
        res.writeHead(303, { location: "/" }).end();
        return;
      }
      if (req.method === "GET" && url.pathname === "/install") {
        const slug = url.searchParams.get("store") ?? undefined;
        const start = authorizeUrl({
          ...creds,
          redirectUri,
          scopes: SCOPES,
          ...(slug ? { store: slug } : {}),
        });
        pending.set(start.state, { verifier: start.codeVerifier, expires: Date.now() + 600_000 });
        res
          .writeHead(302, {
            location: start.url,
            "set-cookie": `oauth_state=${start.state}; HttpOnly; SameSite=Lax; Path=/oauth; Max-Age=600`,
          })
          .end();
        return;
      }
      if (req.method === "GET" && url.pathname === "/oauth/callback") {
        const cookie = /(?:^|;\s*)oauth_state=([^;]+)/.exec(req.headers.cookie ?? "")?.[1] ?? "";
        const { code, slug } = readCallback(url.searchParams, cookie);
        const started = pending.get(cookie);
        pending.delete(cookie);
        if (!started || started.expires < Date.now())
          throw new Error("The install took too long; start again.");
        const tokens = await exchangeCode({
          ...creds,
          code,
          slug,
          redirectUri,
          codeVerifier: started.verifier,
        });
        await store.set(slug, tokens);
        const subscribed = await subscribe(slug);
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(
            page(
              "Installed",
              `<p>Installed in <b>${html(slug)}</b> with ${html(tokens.scopes.join(", "))}.</p><p>${subscribed.length ? `Subscribed to order.created, order.paid and app/uninstalled at ${html(config.webhookUrl ?? "")}.` : "No public webhook URL: run <code>listen</code> to receive events while you develop."}</p><p><a href="/">See events</a></p>`,
            ),
          );
        return;
      }
      if (url.pathname.startsWith("/dev/") && config.devTokens && !localDevRequest(req)) {
        res
          .writeHead(403, { "content-type": "text/plain" })
          .end("development endpoints answer local requests only\n");
        return;
      }
      if (req.method === "GET" && url.pathname === "/dev/token" && config.devTokens) {
        const slug = url.searchParams.get("store") ?? Object.keys(data.tokens)[0];
        if (!slug || !data.tokens[slug]) {
          res.writeHead(404, { "content-type": "text/plain" }).end("not installed\n");
          return;
        }
        res
          .writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" })
          .end(await tokensFor(slug).accessToken());
        return;
      }
      if (req.method === "POST" && url.pathname === "/dev/listen-secret" && config.devTokens) {
        const secret =
          new URLSearchParams((await readBody(req, 4096)).toString()).get("secret")?.trim() ?? "";
        // `whsec_` + base64 (Standard Webhooks form), or the 43 base62 characters of older secrets.
        if (!/^whsec_[0-9A-Za-z+/]{20,}={0,2}$/.test(secret)) {
          res.writeHead(400, { "content-type": "text/plain" }).end("not a webhook secret\n");
          return;
        }
        listenSecrets.add(secret);
        res.writeHead(303, { location: "/" }).end();
        return;
      }
      if (req.method === "GET" && url.pathname === "/events.json") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ installed: Object.keys(data.tokens), received }));
        return;
      }
      if (req.method === "GET" && url.pathname === "/") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(home());
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    } catch (error) {
      const message =
        error instanceof PlatformError ? `${error.code}: ${error.message}` : (error as Error).message;
      res
        .writeHead(400, { "content-type": "text/html; charset=utf-8" })
        .end(page("Something went wrong", `<p>${html(message)}</p>`));
    }
  }

  function home() {
    const rows = received
      .map(
        (r) =>
          `<tr><td>${html(r.at.slice(11, 19))}</td><td>${html(r.event)}${r.test ? " <small>(test)</small>" : ""}</td><td>${html(r.store)}</td><td>${html(r.summary)}</td><td><code>${html(r.deliveryId)}</code></td><td>${html(r.apiVersion)}</td></tr>`,
      )
      .join("");
    const toShip = Object.entries(data.toShip ?? {}).flatMap(([slug, orders]) =>
      orders.map(
        (o) =>
          `<tr><td>${html(slug)}</td><td>${html(o.name)}</td><td>${html(o.total)}</td><td><form method="post" action="/ship"><input type="hidden" name="store" value="${html(slug)}"><input type="hidden" name="order" value="${html(o.id)}"><input name="carrier" placeholder="Carrier" required> <input name="trackingNumber" placeholder="Tracking number" required> <input name="trackingUrl" placeholder="Tracking URL (optional)"> <button>Mark shipped</button></form></td></tr>`,
      ),
    );
    return page(
      "Sample app",
      `<form action="/install"><label>Store slug <input name="store" placeholder="demo-store"></label> <button>Install</button></form>
<p>Installed in: ${Object.keys(data.tokens).map(html).join(", ") || "no store yet"}.</p>
${config.devTokens ? `<form method="post" action="/dev/listen-secret"><label>Listen secret <input name="secret" placeholder="whsec_… (printed by listen)" size="50"></label> <button>Use</button></form>` : ""}
<h2>Paid orders to ship</h2>
<table><tr><th>Store</th><th>Order</th><th>Total</th><th></th></tr>${toShip.join("") || '<tr><td colspan="4">None: orders appear here when they are paid.</td></tr>'}</table>
<h2>Verified webhooks</h2>
<table><tr><th>Time</th><th>Event</th><th>Store</th><th></th><th>Delivery</th><th>API version</th></tr>${rows || '<tr><td colspan="6">Nothing yet.</td></tr>'}</table>
<p><small>Calls and subscriptions at API version ${html(API_VERSION)}, the one this SDK was generated for.</small></p>`,
      toShip.length === 0,
    );
  }

  return { handler, received, data, addListenSecret: (s: string) => listenSecrets.add(s) };
}

function load(file: string | undefined): Data {
  if (!file) return { tokens: {}, secrets: {}, toShip: {} };
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Data;
  } catch {
    return { tokens: {}, secrets: {}, toShip: {} };
  }
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A page; `refresh` reloads it every 5 s (not while a form waits to be filled in). */
function page(title: string, body: string, refresh = true): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(title)}</title>
${refresh ? '<meta http-equiv="refresh" content="5">' : ""}
<style>body{font:15px system-ui;margin:2rem;max-width:60rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}</style>
</head><body><h1>${html(title)}</h1>${body}</body></html>`;
}
