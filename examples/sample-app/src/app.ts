import { readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AdminClient,
  type AdminPaths,
  API_VERSION,
  authorizeUrl,
  type Components,
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
  type WebhookEvent,
} from "@merchant-platform/sdk";
import { appDiscounts, createWelcomeDiscount, discountsSection, welcomeDiscountOf } from "./discounts.ts";
import { hidden, html, page, sendPage } from "./html.ts";
import { itemsOf } from "./lines.ts";
import {
  calculateRefund,
  listRefunds,
  recordRefund,
  refundChoiceOf,
  refundKey,
  refundPage,
} from "./refunds.ts";
import {
  approveReturn,
  closeReturn,
  declineReturn,
  isReason,
  type Return,
  receiveReturn,
  recentShippedOrders,
  remember,
  requestReturn,
  returnLines,
  returnsDesk,
  type ShippedOrder,
  shippedOrderOf,
} from "./returns.ts";

/**
 * A small Merchant Platform app, built only on the SDK: an install link, the OAuth callback
 * (state + PKCE), token storage (a JSON file), subscriptions to the order and return events and
 * `app/uninstalled`, a webhook endpoint that verifies and deduplicates, a page of what arrived,
 * fulfilment (a paid order is marked shipped with its carrier and tracking number, and the app
 * keeps its own shipment id on the order as metadata), a returns desk (request, approve or
 * decline, receive, close with a refund: returns.ts), welcome discount codes (discounts.ts),
 * refunds previewed before they are recorded (refunds.ts), and clean-up when the app is uninstalled.
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
  /** JSON file for tokens, subscription secrets and what the page lists; memory only when absent. */
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
  /** Shipped and delivered orders, by store slug: what the returns desk can take back. */
  shipped?: Record<string, ShippedOrder[]>;
  /** Returns made here or seen in events, by store slug, oldest first. */
  returns?: Record<string, Return[]>;
  /** The ids of the discount codes this app made, by store slug. */
  discounts?: Record<string, string[]>;
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

type Scope = Components["schemas"]["TokenPair"]["scopes"][number];
/** What the app asks for (register it with these): orders and refunds, returns, discount codes, subscriptions. */
export const SCOPES: Scope[] = [
  "read_orders",
  "write_orders",
  "read_returns",
  "write_returns",
  "read_discounts",
  "write_discounts",
  "manage_webhooks",
];

type SubscribableEvent = NonNullable<
  AdminPaths["/api/v1/apps/api/webhooks"]["post"]["requestBody"]
>["content"]["application/json"]["eventName"];
/** What the app subscribes to when it has a public WEBHOOK_URL. */
export const EVENTS = [
  "order.created",
  "order.paid",
  "order.shipped",
  "order.delivered",
  "return.requested",
  "return.approved",
  "return.declined",
  "return.received",
  "return.closed",
  "app/uninstalled",
] as const satisfies readonly SubscribableEvent[];

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

type ReturnEvent = Extract<WebhookEvent, { event: `return.${string}` }>;
function isReturnEvent(event: WebhookEvent): event is ReturnEvent {
  return event.event.startsWith("return.");
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The app's own pages post its forms; another site's form must not ship, refund or approve
 * returns for the merchant. A browser names where a request comes from in Sec-Fetch-Site, and
 * (older ones) in Origin; a request with neither is not a browser's cross-site form (curl, tests).
 */
function sameOriginForm(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site) return site === "same-origin";
  return originIsHost(req);
}

/** A browser's Origin, when it sent one, names the host asked. */
function originIsHost(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser's cross-origin request (curl, the CLI)
  try {
    return new URL(origin).host === req.headers.host; // "null" (a sandboxed page) does not parse
  } catch {
    return false;
  }
}

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
  return originIsHost(req);
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
      summary: summaryOf(event),
    });
    received.length = Math.min(received.length, 200);
    if ((event.event === "order.shipped" || event.event === "order.delivered") && !test) {
      // Shipped elsewhere (the dashboard, another app) or here: off the fulfilment list, onto the returns desk.
      if (data.toShip?.[slug]) data.toShip[slug] = data.toShip[slug].filter((o) => o.id !== event.data.id);
      offerReturns(slug, [shippedOrderOf(event.data)]);
    }
    if (isReturnEvent(event) && !test) keepReturn(slug, event.data);
    // Deliveries of one order's events can arrive in any order: a paid order already shipped stays shipped.
    if (event.event === "order.paid" && !test && !data.shipped?.[slug]?.some((o) => o.id === event.data.id)) {
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
      delete data.shipped?.[slug];
      delete data.returns?.[slug];
      delete data.discounts?.[slug];
      managers.delete(slug);
      save();
    }
  }

  function summaryOf(event: WebhookEvent): string {
    if (isReturnEvent(event)) {
      const orders = data.shipped?.[event.store.slug] ?? [];
      const order = orders.find((o) => o.id === event.data.orderId)?.name ?? event.data.orderId;
      const refund = event.data.refundId ? `, refund ${event.data.refundId}` : "";
      return `return of order ${order}: ${returnLines(event.data, orders)}, ${event.data.status}${refund}`;
    }
    switch (event.event) {
      case "order.created":
      case "order.paid":
      case "order.shipped":
      case "order.delivered":
        return `order ${event.data.name}, ${event.data.total} ${event.data.currency}: ${itemsOf(event.data.lineItems)}`;
      case "app/uninstalled":
        return `uninstalled at ${event.data.uninstalledAt}`;
      default:
        return "";
    }
  }

  /** Puts shipped orders on the returns desk (newest last, each once, the last 100 per store). */
  function offerReturns(slug: string, orders: ShippedOrder[]) {
    data.shipped ??= {};
    const fresh = new Set(orders.map((o) => o.id));
    data.shipped[slug] = [...(data.shipped[slug] ?? []).filter((o) => !fresh.has(o.id)), ...orders].slice(
      -100,
    );
    save();
  }

  function keepReturn(slug: string, next: Return) {
    data.returns ??= {};
    data.returns[slug] = remember(data.returns[slug] ?? [], next);
    save();
  }

  const secrets = () => [...listenSecrets, ...Object.values(data.secrets).flat()];

  async function subscribe(slug: string) {
    if (!config.webhookUrl) return [];
    const admin = adminFor(slug);
    const made: string[] = [];
    for (const eventName of EVENTS) {
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

  /**
   * The forms of the app's pages, by the path they post to. Each gets the form, its `store` (one
   * the app is installed in) and that installation's client, and answers where the browser goes
   * next. Same-origin posts only, checked once for all of them in `handler`.
   */
  type FormAction = (form: URLSearchParams, slug: string, admin: AdminClient) => Promise<string>;
  const formActions = new Map<string, FormAction>([
    [
      "/ship",
      async (form, slug, admin) => {
        const orderId = form.get("order") ?? "";
        const trackingUrl = form.get("trackingUrl")?.trim();
        const order = await shipOrder(
          admin,
          orderId,
          {
            carrier: form.get("carrier")?.trim() || "Unknown carrier",
            trackingNumber: form.get("trackingNumber")?.trim() || "n/a",
            ...(trackingUrl ? { trackingUrl } : {}),
          },
          `shp_${Date.now().toString(36)}`,
        );
        if (data.toShip?.[slug]) data.toShip[slug] = data.toShip[slug].filter((o) => o.id !== orderId);
        offerReturns(slug, [shippedOrderOf(order)]);
        return "/";
      },
    ],
    [
      "/shipped/load",
      async (_form, slug, admin) => {
        offerReturns(slug, (await recentShippedOrders(admin)).reverse().map(shippedOrderOf));
        return "/";
      },
    ],
    [
      "/returns",
      async (form, slug, admin) => {
        const quantity = form.get("quantity")?.trim() ?? "";
        const reason = form.get("reason") ?? "";
        if (!/^[1-9]\d{0,4}$/.test(quantity)) throw new Error(`Not a number of units: ${quantity}`);
        if (!isReason(reason)) throw new Error(`Not a reason: ${reason}`);
        const line = { lineItemId: form.get("line") ?? "", quantity: Number(quantity), reason };
        keepReturn(
          slug,
          await requestReturn(admin, form.get("order") ?? "", line, form.get("note")?.trim() ?? ""),
        );
        return "/";
      },
    ],
    [
      "/returns/approve",
      async (form, slug, admin) => {
        keepReturn(slug, await approveReturn(admin, form.get("return") ?? ""));
        return "/";
      },
    ],
    [
      "/returns/decline",
      async (form, slug, admin) => {
        keepReturn(slug, await declineReturn(admin, form.get("return") ?? ""));
        return "/";
      },
    ],
    [
      "/returns/receive",
      async (form, slug, admin) => {
        keepReturn(slug, await receiveReturn(admin, form.get("return") ?? "", form.get("restock") === "on"));
        return "/";
      },
    ],
    [
      "/returns/close",
      async (form, slug, admin) => {
        const closed = await closeReturn(
          admin,
          form.get("return") ?? "",
          form.get("refund") === "on",
          form.get("shipping") === "on",
        );
        keepReturn(slug, closed);
        return "/";
      },
    ],
    [
      "/discounts",
      async (form, slug, admin) => {
        const made = await createWelcomeDiscount(admin, welcomeDiscountOf(form));
        data.discounts ??= {};
        data.discounts[slug] = [...(data.discounts[slug] ?? []), made.id].slice(-50);
        save();
        return "/";
      },
    ],
    [
      "/refunds",
      async (form, slug, admin) => {
        const orderId = form.get("order") ?? "";
        // The order as the preview read it: part of the Idempotency-Key (refunds.ts, refundKey).
        const seen = form.get("seen") ?? "";
        if (!seen) throw new Error("Preview the refund first.");
        const choice = refundChoiceOf(form);
        await recordRefund(admin, orderId, choice, refundKey(slug, orderId, choice, seen));
        return `/refund?${new URLSearchParams({ store: slug, order: orderId })}`;
      },
    ],
  ]);

  async function handler(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", config.publicUrl);
    try {
      if (req.method === "POST" && url.pathname === "/webhooks") {
        const body = await readBody(req, 1024 * 1024);
        const answer = await handleWebhook({ secret: secrets, duplicates, onEvent }, body, req.headers);
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
        return;
      }
      const action = req.method === "POST" ? formActions.get(url.pathname) : undefined;
      if (action) {
        if (!sameOriginForm(req)) {
          res.writeHead(403, { "content-type": "text/plain" }).end("same-origin requests only\n");
          return;
        }
        const form = new URLSearchParams((await readBody(req, 8192)).toString());
        const slug = form.get("store") ?? "";
        if (!data.tokens[slug]) throw new Error("Not installed in this store.");
        res.writeHead(303, { location: await action(form, slug, adminFor(slug)) }).end();
        return;
      }
      if (req.method === "GET" && url.pathname === "/refund") {
        const slug = url.searchParams.get("store") ?? "";
        if (!data.tokens[slug]) throw new Error("Not installed in this store.");
        const admin = adminFor(slug);
        const orderId = url.searchParams.get("order") ?? "";
        const choice = refundChoiceOf(url.searchParams);
        const [order, refunds] = await Promise.all([
          unwrap(admin.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: orderId } } })),
          listRefunds(admin, orderId),
        ]);
        const preview =
          choice.lineItems.length > 0 || choice.shipping
            ? await calculateRefund(admin, orderId, choice).catch((error: unknown) => {
                // Shown on the page (more units than are left, an order no longer paid), not as a failure.
                if (error instanceof PlatformError) return error;
                throw error;
              })
            : null;
        sendPage(
          res,
          200,
          page(`Refund ${order.name}`, refundPage({ slug, order, choice, preview, refunds })),
        );
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
        sendPage(
          res,
          200,
          page(
            "Installed",
            `<p>Installed in <b>${html(slug)}</b> with ${html(tokens.scopes.join(", "))}.</p><p>${subscribed.length ? `Subscribed to ${html(EVENTS.join(", "))} at ${html(config.webhookUrl ?? "")}.` : "No public webhook URL: run <code>listen</code> to receive events while you develop."}</p><p><a href="/">See events</a></p>`,
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
      if (req.method === "GET" && url.pathname === "/events") {
        sendPage(res, 200, eventsPage());
        return;
      }
      if (req.method === "GET" && url.pathname === "/") {
        sendPage(res, 200, await home());
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    } catch (error) {
      const message =
        error instanceof PlatformError ? `${error.code}: ${error.message}` : (error as Error).message;
      sendPage(res, 400, page("Something went wrong", `<p>${html(message)}</p><p><a href="/">Back</a></p>`));
    }
  }

  async function home() {
    const slugs = Object.keys(data.tokens);
    const toShip = Object.entries(data.toShip ?? {}).flatMap(([slug, orders]) =>
      orders.map(
        (o) =>
          `<tr><td>${html(slug)}</td><td>${html(o.name)}</td><td>${html(o.total)}</td><td><form method="post" action="/ship">${hidden({ store: slug, order: o.id })}<input name="carrier" placeholder="Carrier" required> <input name="trackingNumber" placeholder="Tracking number" required> <input name="trackingUrl" placeholder="Tracking URL (optional)"> <button>Mark shipped</button></form> <a href="/refund?${new URLSearchParams({ store: slug, order: o.id })}">Refund…</a></td></tr>`,
      ),
    );
    const desk = returnsDesk(
      slugs.map((slug) => ({
        slug,
        shipped: data.shipped?.[slug] ?? [],
        returns: data.returns?.[slug] ?? [],
      })),
    );
    const codes = await Promise.all(
      slugs.map(async (slug) => ({
        slug,
        codes: await appDiscounts(adminFor(slug), data.discounts?.[slug] ?? []),
      })),
    );
    return page(
      "Sample app",
      `<form action="/install"><label>Store slug <input name="store" placeholder="demo-store"></label> <button>Install</button></form>
<p>Installed in: ${slugs.map(html).join(", ") || "no store yet"}.</p>
${config.devTokens ? `<form method="post" action="/dev/listen-secret"><label>Listen secret <input name="secret" placeholder="whsec_… (printed by listen)" size="50"></label> <button>Use</button></form>` : ""}
<h2>Paid orders to ship</h2>
<table><tr><th>Store</th><th>Order</th><th>Total</th><th></th></tr>${toShip.join("") || '<tr><td colspan="4">None: orders appear here when they are paid.</td></tr>'}</table>
${desk.body}
${discountsSection(codes)}
<iframe src="/events" title="Verified webhooks, newest first"></iframe>
<p><small>Calls and subscriptions at API version ${html(API_VERSION)}, the one this SDK was generated for. This page has forms to fill in, so it does not reload itself; the list of webhooks above does, every 5 s.</small></p>`,
    );
  }

  /** What arrived, newest first; framed by `/` and reloading itself, so `/`'s forms keep what is typed. */
  function eventsPage() {
    const rows = received
      .map(
        (r) =>
          `<tr><td>${html(r.at.slice(11, 19))}</td><td>${html(r.event)}${r.test ? " <small>(test)</small>" : ""}</td><td>${html(r.store)}</td><td>${html(r.summary)}</td><td><code>${html(r.deliveryId)}</code></td><td>${html(r.apiVersion)}</td></tr>`,
      )
      .join("");
    return page(
      "Verified webhooks",
      `<table><tr><th>Time</th><th>Event</th><th>Store</th><th></th><th>Delivery</th><th>API version</th></tr>${rows || '<tr><td colspan="6">Nothing yet.</td></tr>'}</table>`,
      true,
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
