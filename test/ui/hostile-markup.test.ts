import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { flat } from "../catalogue.ts";
import { type Api, apiClient, type ErrorBody, type RequestBody, type Scope, text } from "../harness.ts";
import { ALL_MARKUP, longWord, MARKUP } from "../hostile-inputs.ts";
import { startReceiver } from "../receiver.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { createWebhookContext, waitUntil } from "../webhooks-harness.ts";
import { launchChromium } from "./browser.ts";
import { DESKTOP, heading, PASSWORD, PHONE, pages, row, shoot } from "./pages.ts";

/**
 * Stored markup in a real browser (issue 27, item 5). One merchant (who is also the developer of
 * two apps) writes the most hostile value each field accepts into every field a merchant or an app
 * can write: store settings, products, customers, orders (note, tags, shipping address), the
 * fulfilment an app records, app metadata, the apps' names, redirect URIs and privacy endpoints,
 * webhook targets and filters, what a webhook receiver answers, API key names and the account's
 * own name. Each field is written through the API that writes it in production (the dashboard's
 * with the session, the Admin API with an app's token), and each refuses what it does not take
 * with a 4xx. Then every dashboard page that shows those values is opened at 1366×800 and 390×844,
 * and on each:
 *
 * - nothing executes: the sentinel `window.__pwned` (a setter installed before any page script)
 *   is never assigned, no alert/confirm/prompt opens, no element carries an `on*` attribute, and
 *   no <img>, <iframe>, <object>, <embed>, <base> or script other than the dashboard's own exists.
 *   The context bypasses the Content-Security-Policy on purpose: the CSP would block an inline
 *   handler anyway, and this test is about the rendering, not the safety net (dashboard.test.ts
 *   holds the CSP);
 * - nothing overflows its box, and no page scrolls sideways (the rule is with `inspect` below);
 * - a right-to-left override turns only its own value around, never the page's words after it;
 * - every link goes to http(s), mailto or a path of this origin without dot segments.
 *
 * The order-number prefix `../..` (and `../../`, `/../../`) names orders that are still reached by
 * their id, and `/../../admin` is refused.
 */

const S1 = "hostile-shop";
const S2 = "markup-shop";
const APP_SCOPES: Scope[] = [
  "read_products",
  "write_products",
  "read_orders",
  "write_orders",
  "read_customers",
  "write_customers",
  "manage_webhooks",
];
/** Every markup payload, one a line (notes keep their lines). */
const MARKUP_LINES = Object.values(MARKUP).join("\n");
/** An https redirect URI as hostile as the contract lets through: quotes, `=` and a javascript: query. */
const A1_REDIRECT =
  "https://app.example.com/cb/'onerror=window.__pwned=1//?next=javascript:window.__pwned=1//";
const A2_REDIRECT = `https://app.example.com/${longWord(2000 - "https://app.example.com/".length)}`;
const A1_TRACKING = "https://track.example/?u=javascript:window.__pwned=1//&q='onerror=window.__pwned=1//";
const A2_TRACKING = `https://track.example/${longWord(2000 - "https://track.example/".length)}`;
const ADDRESS_MARKUP: Address = {
  name: MARKUP.img,
  company: MARKUP.svg,
  line1: MARKUP.script,
  line2: MARKUP.js,
  city: MARKUP.rtl,
  region: MARKUP.img,
  postalCode: "12271",
  country: "SA",
  phone: "+966 50 123 4567",
};
const ADDRESS_LONG: Address = {
  name: longWord(100),
  company: longWord(100),
  line1: longWord(200),
  line2: longWord(200),
  city: longWord(100),
  region: longWord(100),
  postalCode: longWord(16),
  country: "SA",
};
const MARKUP_TAGS = [...Object.values(MARKUP), "../..", longWord(40)];
const LONG_TAGS = Array.from({ length: 50 }, (_, i) => longWord(40, `t${i}`));
const META_MARKUP = {
  "javascript:window.__pwned": MARKUP.js,
  img: MARKUP.img,
  script: MARKUP.script,
  svg: MARKUP.svg,
  rtl: MARKUP.rtl,
};
const META_LONG = { [longWord(40)]: longWord(500), all: ALL_MARKUP };

/** An address as the dashboard sends it. */
type Address = NonNullable<RequestBody<"/api/v1/dashboard/stores/{slug}", "patch">["address"]>;

/** The DOM as the checks read it (the project's tsconfig has no DOM types). */
interface El {
  tagName: string;
  parentElement: El | null;
  className: unknown;
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  contains(other: El): boolean;
  querySelectorAll(selector: string): ArrayLike<El>;
}
interface TextNode {
  data: string;
  parentElement: El | null;
}
interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
}
interface Win {
  document: {
    documentElement: El;
    body: El;
    querySelectorAll(selector: string): ArrayLike<El>;
    createTreeWalker(root: El, show: number): { nextNode(): TextNode | null };
    createRange(): {
      setStart(node: TextNode, offset: number): void;
      setEnd(node: TextNode, offset: number): void;
      getClientRects(): ArrayLike<Rect>;
    };
  };
  innerWidth: number;
  location: { origin: string; href: string };
  getComputedStyle(el: El): { overflowX: string; display: string };
  __pwned?: unknown;
}

/**
 * What is wrong on the page as it is: injected elements, links that leave http(s), overflowing
 * boxes and right-to-left overrides that reach past their value. Runs in the page.
 *
 * The overflow rule: an element overflows when its content is wider than its box
 * (`scrollWidth > clientWidth + 1`, a pixel for rounding). Every rendered element is held to it
 * except those without a box of their own (clientWidth 0: inline and hidden elements, whose block
 * is checked instead), form controls (an input scrolls its value inside by design) and elements
 * that clip on purpose (computed overflow-x hidden or clip: `.clamp`, `.nav-title` and
 * `.visually-hidden` end in an ellipsis or hide by design). A scroll container (`.table-wrap`, the
 * sidebar) is held to it too: no list needs a sideways scrollbar at these widths, and a value that
 * forces one is the defect. Only the innermost overflowing elements are reported (their ancestors
 * overflow because of them), and the document itself must not scroll sideways.
 *
 * The override rule: `override` (U+202E and a file name) ends every value that carries it, so the
 * first visible character after it in the same block is the page's own text or another value. In
 * left-to-right text that character must be drawn to the right of the override's text on their
 * line; an override that leaks turns it around and draws it to the left ("Install ?exe.png").
 */
function inspect(override: string) {
  const w = globalThis as unknown as Win;
  const all = Array.from(w.document.querySelectorAll("body *"));
  const name = (el: El) => {
    const cls =
      typeof el.className === "string" && el.className ? `.${el.className.trim().replace(/\s+/g, ".")}` : "";
    // A table that overflows: name its widest cell, the one to fix.
    let text = el.textContent ?? "";
    const cells = Array.from(el.querySelectorAll("td"));
    if (cells.length)
      text = cells.reduce((a, b) => (b.scrollWidth > a.scrollWidth ? b : a)).textContent ?? "";
    return `${el.tagName.toLowerCase()}${cls} ${el.scrollWidth}>${el.clientWidth}px "${text.slice(0, 50)}"`;
  };
  // Markup that became elements.
  const injected: string[] = [];
  for (const el of all)
    for (const attr of Array.from(el.attributes))
      if (/^on/i.test(attr.name)) injected.push(`${el.tagName.toLowerCase()}[${attr.name}]`);
  for (const el of Array.from(w.document.querySelectorAll("img, iframe, object, embed, frame, base")))
    injected.push(el.tagName.toLowerCase());
  for (const el of Array.from(w.document.querySelectorAll("script")))
    if (!(el.getAttribute("src") ?? "").startsWith("/assets/"))
      injected.push(`script ${el.textContent?.slice(0, 40)}`);

  // Links.
  const links: string[] = [];
  for (const a of Array.from(w.document.querySelectorAll("a[href]"))) {
    const href = a.getAttribute("href")!;
    const url = new URL(href, w.location.href);
    if (!["http:", "https:", "mailto:"].includes(url.protocol))
      links.push(`${url.protocol} ${href.slice(0, 80)}`);
    else if (url.origin === w.location.origin && /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(href.split(/[?#]/)[0]!))
      links.push(`dot segment ${href.slice(0, 80)}`);
  }

  // Overflow.
  const FORM = new Set(["INPUT", "TEXTAREA", "SELECT", "OPTION"]);
  const wide = all.filter((el) => {
    if (el.clientWidth === 0 || FORM.has(el.tagName)) return false;
    const overflow = w.getComputedStyle(el).overflowX;
    if (overflow === "hidden" || overflow === "clip") return false;
    return el.scrollWidth > el.clientWidth + 1;
  });
  const overflows = wide.filter((el) => !wide.some((other) => other !== el && el.contains(other))).map(name);
  const sideways = w.document.documentElement.scrollWidth - w.innerWidth;
  if (sideways > 0) overflows.push(`the page scrolls sideways by ${sideways}px`);

  // Overrides.
  const bidi: string[] = [];
  const isBlock = (el: El) => !["inline", "contents"].includes(w.getComputedStyle(el).display);
  const blockOf = (t: TextNode) => {
    let el = t.parentElement;
    while (el && !isBlock(el)) el = el.parentElement;
    return el;
  };
  const texts: TextNode[] = [];
  const walker = w.document.createTreeWalker(w.document.body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) texts.push(t);
  const range = w.document.createRange();
  const rects = (t: TextNode, from: number, to: number) => {
    range.setStart(t, from);
    range.setEnd(t, to);
    return Array.from(range.getClientRects()).filter((r) => r.width > 0);
  };
  texts.forEach((t, i) => {
    for (let at = t.data.indexOf(override); at >= 0; at = t.data.indexOf(override, at + 1)) {
      const drawn = rects(t, at, at + override.length);
      if (!drawn.length) continue;
      const block = blockOf(t);
      let next: Rect | undefined;
      for (let j = i, from = at + override.length; j < texts.length && !next; j++, from = 0) {
        const u = texts[j]!;
        if (j > i && blockOf(u) !== block) break;
        const k = u.data.slice(from).search(/\S/);
        if (k >= 0) next = rects(u, from + k, from + k + 1)[0];
      }
      const after = next;
      if (!after) continue;
      const line = drawn.filter((r) => r.top < after.bottom && after.top < r.bottom);
      if (line.some((r) => after.left < r.right - 1))
        bidi.push(`"${(block?.textContent ?? "").slice(0, 80)}"`);
    }
  });
  return { injected, links, overflows, bidi, pwned: w.__pwned };
}

describe("hostile markup in every field, on every page, in a real browser", {
  skip: chromiumSkipReason(),
}, () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let browser: Browser;
  let base: string;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const ui = pages(
    () => browser,
    () => base,
  );
  /** Every assignment to the sentinel and every dialog, wherever it happened. */
  const ran: string[] = [];
  let dash: Api;
  const ids = {} as Record<"p1" | "p2" | "p3" | "c1" | "c2" | "c3" | "o1" | "o2" | "o3", string>;
  const apps = {} as Record<"a1" | "a2", { clientId: string; api: Api }>;

  /** Asserts the answer's status; its envelope's `data`, typed by the operation. */
  const ok = async <D>(
    res: Promise<{ data?: { data: D }; response: Response }>,
    status = 200,
  ): Promise<D> => {
    const r = await res;
    assert.equal(r.response.status, status, text(r).slice(0, 400));
    return r.data!.data;
  };

  /** The merchant's writes through the dashboard API, the apps' through the Admin API. */
  async function writeEverything() {
    dash = apiClient(ctx.app);
    await ok(
      dash.POST("/api/v1/dashboard/auth/signup", {
        body: {
          email: "hostile@example.com",
          password: PASSWORD,
          name: MARKUP.img,
        },
      }),
      201,
    );
    await ok(dash.POST("/api/v1/dashboard/stores", { body: { name: longWord(100), slug: S1 } }), 201);
    await ok(
      dash.POST("/api/v1/dashboard/stores", {
        body: {
          name: `${MARKUP.img} ${MARKUP.svg} ${MARKUP.rtl}`,
          slug: S2,
        },
      }),
      201,
    );
    await ok(
      dash.PATCH("/api/v1/dashboard/stores/{slug}", {
        params: { path: { slug: S1 } },
        body: {
          contactEmail: `${"e".repeat(254 - "@example.com".length)}@example.com`,
          address: ADDRESS_LONG,
        },
      }),
    );
    await ok(
      dash.PATCH("/api/v1/dashboard/stores/{slug}", {
        params: { path: { slug: S2 } },
        body: { contactEmail: "markup@example.com", address: ADDRESS_MARKUP },
      }),
    );

    const product = (flatBody: Parameters<typeof flat>[0]) =>
      ok(
        dash.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: S1 } },
          body: flat(flatBody),
        }),
        201,
      );
    ids.p1 = (
      await product({ title: ALL_MARKUP, price: "1.00", sku: MARKUP.svg, stock: 4, description: longWord() })
    ).id;
    ids.p2 = (
      await product({
        title: longWord(255),
        price: "2.00",
        sku: longWord(64),
        stock: 3,
        description: ALL_MARKUP,
      })
    ).id;
    ids.p3 = (
      await product({
        title: `${MARKUP.js} ${MARKUP.rtl}`,
        price: "3.00",
        sku: MARKUP.rtl,
        stock: 4,
        description: MARKUP.rtl,
      })
    ).id;

    const customer = (body: RequestBody<"/api/v1/dashboard/stores/{slug}/customers", "post">) =>
      ok(
        dash.POST("/api/v1/dashboard/stores/{slug}/customers", { params: { path: { slug: S1 } }, body }),
        201,
      );
    ids.c1 = (
      await customer({
        firstName: MARKUP.img,
        lastName: MARKUP.script,
        email: "markup@example.com",
        phone: "+966 50 123 4567",
        note: MARKUP_LINES,
        tags: MARKUP_TAGS,
        addresses: [ADDRESS_MARKUP, ADDRESS_LONG],
      })
    ).id;
    ids.c2 = (
      await customer({
        firstName: longWord(100),
        lastName: longWord(100),
        email: `${"c".repeat(254 - "@example.com".length)}@example.com`,
        note: longWord(2000),
        tags: LONG_TAGS,
        addresses: [ADDRESS_LONG],
      })
    ).id;
    ids.c3 = (await customer({ firstName: MARKUP.js, lastName: MARKUP.rtl, email: "rtl@example.com" })).id;

    // Two apps of this account, installed in its store, each with its privacy endpoint.
    const register = async (
      key: "a1" | "a2",
      body: Omit<RequestBody<"/api/v1/dashboard/apps", "post">, "scopes"> & { redirectUris: [string] },
    ) => {
      const created = await ok(
        dash.POST("/api/v1/dashboard/apps", { body: { ...body, scopes: APP_SCOPES } }),
        201,
      );
      const consent = await ok(
        dash.POST("/api/v1/dashboard/oauth/consent", {
          body: {
            clientId: created.clientId,
            redirectUri: body.redirectUris[0],
            scopes: APP_SCOPES,
            state: "s",
            storeSlug: S1,
            approve: true,
          },
        }),
      );
      const tokens = await ok(
        apiClient(ctx.app).POST("/api/v1/apps/token", {
          body: {
            slug: S1,
            code: new URL(consent.redirectTo).searchParams.get("code")!,
            redirectUri: body.redirectUris[0],
            clientId: created.clientId,
            clientSecret: created.clientSecret,
          },
        }),
      );
      apps[key] = {
        clientId: created.clientId,
        api: apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.accessToken}` } }),
      };
    };
    await register("a1", {
      name: `${MARKUP.img}${MARKUP.script} ${MARKUP.rtl}`,
      redirectUris: [A1_REDIRECT],
      privacyWebhookUrl: `${rx.url}/privacy/'onerror=window.__pwned=1//?q=javascript:window.__pwned=1//`,
    });
    await register("a2", {
      name: longWord(100),
      redirectUris: [A2_REDIRECT],
      privacyWebhookUrl: `${rx.url}/privacy/${longWord(2000 - `${rx.url}/privacy/`.length)}`,
    });
    // Their listings in the app directory, published: markup, an override and the longest words
    // the contract lets through, and an app URL and a support address as hostile as it allows.
    const list = (app: "a1" | "a2", body: RequestBody<"/api/v1/dashboard/apps/{clientId}/listing", "put">) =>
      ok(
        dash.PUT("/api/v1/dashboard/apps/{clientId}/listing", {
          params: { path: { clientId: apps[app].clientId } },
          body,
        }),
      );
    await list("a1", {
      tagline: `${MARKUP.img} ${MARKUP.rtl}`,
      description: MARKUP_LINES,
      appUrl: A1_REDIRECT,
      supportEmail: "help'onerror=window.__pwned=1//?cc=evil&bcc=x@example.com",
      iconColor: "rose",
      status: "published",
    });
    await list("a2", {
      tagline: longWord(120),
      description: longWord(2000),
      appUrl: A2_REDIRECT,
      supportEmail: `${"s".repeat(254 - "@example.com".length)}@example.com`,
      iconColor: "slate",
      status: "published",
    });
    // Their webhooks: one answered with markup, one with 410 Gone (disabled, shown as a banner).
    await ok(
      apps.a1.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.created",
          targetUrl: `${rx.url}/hook/'onerror=window.__pwned=1//?q=javascript:window.__pwned=1//`,
          filter: 'note:!="<img src=x onerror=window.__pwned=1>"',
        },
      }),
      201,
    );
    await ok(
      apps.a2.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.created",
          targetUrl: `${rx.url}/gone/${longWord(2000 - `${rx.url}/gone/`.length)}`,
        },
      }),
      201,
    );

    // Three orders, each under its own prefix; the merchant marks them paid, the apps ship them.
    const order = async (
      prefix: string,
      body: RequestBody<"/api/v1/dashboard/stores/{slug}/orders", "post">,
    ) => {
      await ok(
        dash.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: S1 } },
          body: { orderNumberPrefix: prefix },
        }),
      );
      const created = await ok(
        dash.POST("/api/v1/dashboard/stores/{slug}/orders", { params: { path: { slug: S1 } }, body }),
        201,
      );
      await ok(
        dash.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
          params: { path: { slug: S1, id: created.id } },
          body: { status: "paid" },
        }),
      );
      return created.id;
    };
    ids.o1 = await order("../..", {
      customerId: ids.c1,
      lineItems: [
        { productId: ids.p1, quantity: 1 },
        { productId: ids.p3, quantity: 1 },
      ],
      note: MARKUP_LINES,
      tags: MARKUP_TAGS,
    });
    ids.o2 = await order("../../", {
      customerId: ids.c2,
      lineItems: [{ productId: ids.p2, quantity: 1 }],
      note: longWord(2000),
      tags: LONG_TAGS,
    });
    ids.o3 = await order("/../../", {
      customerId: ids.c3,
      lineItems: [{ productId: ids.p1, quantity: 1 }],
      note: `${MARKUP.js} ${MARKUP.rtl}`,
      tags: [MARKUP.js, MARKUP.rtl],
    });
    const ship = async (
      app: "a1" | "a2",
      id: string,
      fulfillment: NonNullable<RequestBody<"/api/v1/apps/api/orders/{id}/status", "post">["fulfillment"]>,
    ) => {
      await ok(
        apps[app].api.POST("/api/v1/apps/api/orders/{id}/status", {
          params: { path: { id } },
          body: { status: "confirmed" },
        }),
      );
      await ok(
        apps[app].api.POST("/api/v1/apps/api/orders/{id}/status", {
          params: { path: { id } },
          body: { status: "shipped", fulfillment },
        }),
      );
    };
    await ship("a1", ids.o1, { carrier: MARKUP.img, trackingNumber: MARKUP.svg, trackingUrl: A1_TRACKING });
    await ship("a2", ids.o2, {
      carrier: longWord(100),
      trackingNumber: longWord(100),
      trackingUrl: A2_TRACKING,
    });
    await ship("a1", ids.o3, { trackingUrl: A1_TRACKING });

    // Each app's own data on the records.
    for (const [app, metadata, product, customer, order] of [
      ["a1", META_MARKUP, ids.p1, ids.c1, ids.o1],
      ["a2", META_LONG, ids.p2, ids.c2, ids.o2],
    ] as const) {
      const api = apps[app].api;
      await ok(
        api.PATCH("/api/v1/apps/api/products/{id}", {
          params: { path: { id: product! } },
          body: { metadata },
        }),
      );
      await ok(
        api.PATCH("/api/v1/apps/api/customers/{id}", {
          params: { path: { id: customer! } },
          body: { metadata },
        }),
      );
      await ok(
        api.PATCH("/api/v1/apps/api/orders/{id}", { params: { path: { id: order } }, body: { metadata } }),
      );
    }

    for (const name of [`${MARKUP.img} ${MARKUP.script}`, longWord(100), `${MARKUP.svg} ${MARKUP.rtl}`])
      await ok(
        dash.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: S1 } },
          body: { name, scopes: ["read_products"] },
        }),
        201,
      );
    await ok(
      dash.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
        params: { path: { slug: S1, id: ids.c1 } },
      }),
      201,
    );
    // The timeline keeps the name the merchant had when they moved the orders (the markup); the
    // sidebar shows the one they have now.
    await ok(dash.PATCH("/api/v1/dashboard/account", { body: { name: longWord(100) } }));

    // The delivery logs are complete: A1's three order.created and its data request were answered
    // (with markup); A2's first order.created was answered 410 Gone, which disabled its
    // subscription (the next may have been sent before that, the rest are skipped), and its data
    // request was answered.
    const attempted = async (app: "a1" | "a2", event: string) =>
      (
        await ok(
          dash.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
            params: { path: { clientId: apps[app].clientId } },
          }),
        )
      ).filter((d) => d.eventName === event && d.attemptLog.length > 0).length;
    await waitUntil(
      async () =>
        (await attempted("a1", "order.created")) === 3 &&
        (await attempted("a1", "customer.data_request")) === 1 &&
        (await attempted("a2", "order.created")) >= 1 &&
        (await attempted("a2", "customer.data_request")) === 1,
      20_000,
      "every delivery to be attempted",
    );
    await waitUntil(
      async () =>
        (
          await ok(
            dash.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
              params: { path: { clientId: apps.a2.clientId }, query: { status: "disabled" } },
            }),
          )
        ).length === 1,
      20_000,
      "A2's subscription to be disabled",
    );
  }

  before(async () => {
    ctx = await createWebhookContext();
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    rx = await startReceiver((req, res) => {
      if (req.path.startsWith("/gone/")) res.writeHead(410).end(ALL_MARKUP);
      else res.writeHead(200, { "content-type": "text/html" }).end(`${MARKUP_LINES}\n${longWord(1000)}`);
    });
    // Side by side; the browser is kept (and closed after) even when the writes fail.
    const [launched, written] = await Promise.allSettled([launchChromium(), writeEverything()]);
    if (launched.status === "fulfilled") browser = launched.value;
    for (const r of [launched, written]) if (r.status === "rejected") throw r.reason;
    ({ context, page, errors } = await ui.open(DESKTOP, { bypassCSP: true }));
    await context.exposeBinding("__sentinel", ({ frame }, what: string) => {
      ran.push(`${frame.url()}: ${what}`);
    });
    await context.addInitScript(() => {
      const w = globalThis as unknown as { __sentinel(what: string): void };
      Object.defineProperty(globalThis, "__pwned", {
        configurable: false,
        get: () => undefined,
        set: (value: unknown) => w.__sentinel(`window.__pwned = ${String(value)}`),
      });
    });
    page.on("dialog", (d) => {
      ran.push(`${page.url()}: ${d.type()} "${d.message()}"`);
      d.dismiss().catch(() => {});
    });
    const session = dash.jar.cookie!.slice(dash.jar.cookie!.indexOf("=") + 1);
    await context.addCookies([{ name: "mp_session", value: session, url: base }]);
    await page.route("https://app.example.com/**", (route) =>
      route.fulfill({ status: 200, body: "callback" }),
    );
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await rx?.close();
    await ctx?.close();
  });

  /** Everything wrong with the page as it is now (see `inspect`), named by `where`. */
  async function check(where: string, failures: string[]) {
    const found = await page.evaluate(inspect, MARKUP.rtl);
    for (const i of found.injected) failures.push(`${where}: injected ${i}`);
    for (const l of found.links) failures.push(`${where}: link to ${l}`);
    for (const o of found.overflows) failures.push(`${where}: overflows: ${o}`);
    for (const b of found.bidi) failures.push(`${where}: the override reaches past its value in ${b}`);
    if (found.pwned !== undefined) failures.push(`${where}: window.__pwned is ${String(found.pwned)}`);
    // A handler may run after the page settled (an image's error comes late): it is reported with
    // the page it ran on (its URL), at the next check.
    for (const r of ran.splice(0)) failures.push(`${where}: ran ${r}`);
  }

  it("takes the most hostile value each field allows, and refuses the rest with a 400", async () => {
    // One at a time, each a request that must be refused.
    // Values the document's types allow (strings) and its rules refuse (lengths, patterns).
    const refused: Array<[string, () => Promise<{ error?: ErrorBody; response: Response }>]> = [
      [
        "store name of 101",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { name: longWord(101) },
          }),
      ],
      [
        "prefix /../../admin",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { orderNumberPrefix: "/../../admin" },
          }),
      ],
      [
        "prefix with a space",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { orderNumberPrefix: "<b> x" },
          }),
      ],
      [
        "contact javascript:",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { contactEmail: MARKUP.js },
          }),
      ],
      [
        "contact with markup",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { contactEmail: `"${MARKUP.svg}"@example.com` },
          }),
      ],
      [
        "product title of 256",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: S1 } },
            body: flat({ title: longWord(256), price: "1.00" }),
          }),
      ],
      [
        "product description of 10,001",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: S1 } },
            body: flat({ title: "x", price: "1.00", description: longWord(10_001) }),
          }),
      ],
      [
        "SKU of 65",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: S1 } },
            body: flat({ title: "x", price: "1.00", sku: longWord(65) }),
          }),
      ],
      [
        "customer name of 101",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug: S1 } },
            body: { firstName: longWord(101), email: "a@example.com" },
          }),
      ],
      [
        "customer e-mail javascript:",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug: S1 } },
            body: { firstName: "a", email: MARKUP.js },
          }),
      ],
      [
        "phone with markup",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: S1, id: ids.c1 } },
            body: { phone: `+966 ${MARKUP.img}` },
          }),
      ],
      [
        "postal code with markup",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: S1, id: ids.c1 } },
            body: {
              addresses: [{ ...ADDRESS_MARKUP, postalCode: "<b>1</b>" }],
            },
          }),
      ],
      [
        "time zone ../..",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}", {
            params: { path: { slug: S1 } },
            body: { timeZone: "../../etc/passwd" },
          }),
      ],
      [
        "tag of 41",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: S1, id: ids.c1 } },
            body: { tags: [longWord(41)] },
          }),
      ],
      [
        "tag with a comma",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: S1, id: ids.c1 } },
            body: { tags: ["<b>a,b</b>"] },
          }),
      ],
      [
        "order note of 2,001",
        () =>
          dash.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
            params: { path: { slug: S1, id: ids.o1 } },
            body: { note: longWord(2001) },
          }),
      ],
      [
        "key name of 101",
        () =>
          dash.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: S1 } },
            body: { name: longWord(101), scopes: ["read_products"] },
          }),
      ],
      [
        "account name of 101",
        () => dash.PATCH("/api/v1/dashboard/account", { body: { name: longWord(101) } }),
      ],
      [
        "redirect URI javascript:",
        () =>
          dash.POST("/api/v1/dashboard/apps", {
            body: { name: "x", redirectUris: [MARKUP.js], scopes: APP_SCOPES },
          }),
      ],
      [
        "redirect URI with markup",
        () =>
          dash.POST("/api/v1/dashboard/apps", {
            body: {
              name: "x",
              redirectUris: [`https://app.example.com/${MARKUP.svg}`],
              scopes: APP_SCOPES,
            },
          }),
      ],
      [
        "redirect URI data:",
        () =>
          dash.POST("/api/v1/dashboard/apps", {
            body: {
              name: "x",
              redirectUris: [`data:text/html,${MARKUP.script}`],
              scopes: APP_SCOPES,
            },
          }),
      ],
      [
        "app name of 101",
        () =>
          dash.POST("/api/v1/dashboard/apps", {
            body: {
              name: longWord(101),
              redirectUris: [A1_REDIRECT],
              scopes: APP_SCOPES,
            },
          }),
      ],
      [
        "privacy endpoint javascript:",
        () =>
          dash.PATCH("/api/v1/dashboard/apps/{clientId}", {
            params: { path: { clientId: apps.a1.clientId } },
            body: { privacyWebhookUrl: MARKUP.js },
          }),
      ],
      [
        "tracking URL javascript:",
        () =>
          apps.a1.api.POST("/api/v1/apps/api/orders/{id}/status", {
            params: { path: { id: ids.o2 } },
            body: {
              status: "delivered",
              fulfillment: { trackingUrl: MARKUP.js },
            },
          }),
      ],
      [
        "tracking URL JAVASCRIPT:",
        () =>
          apps.a1.api.POST("/api/v1/apps/api/orders/{id}/status", {
            params: { path: { id: ids.o2 } },
            body: {
              status: "shipped",
              fulfillment: { trackingUrl: "JAVASCRIPT:window.__pwned=1//" },
            },
          }),
      ],
      [
        "carrier of 101",
        () =>
          apps.a1.api.POST("/api/v1/apps/api/orders/{id}/status", {
            params: { path: { id: ids.o2 } },
            body: {
              status: "shipped",
              fulfillment: { carrier: longWord(101) },
            },
          }),
      ],
      [
        "metadata key with markup",
        () =>
          apps.a1.api.PATCH("/api/v1/apps/api/products/{id}", {
            params: { path: { id: ids.p1 } },
            body: { metadata: { "<img>": "x" } },
          }),
      ],
      [
        "metadata key javascript:",
        () =>
          apps.a1.api.PATCH("/api/v1/apps/api/products/{id}", {
            params: { path: { id: ids.p1 } },
            body: { metadata: { [MARKUP.js]: "x" } },
          }),
      ],
      [
        "metadata value of 501",
        () =>
          apps.a1.api.PATCH("/api/v1/apps/api/products/{id}", {
            params: { path: { id: ids.p1 } },
            body: { metadata: { k: longWord(501) } },
          }),
      ],
      [
        "webhook target javascript:",
        () =>
          apps.a1.api.POST("/api/v1/apps/api/webhooks", {
            body: { eventName: "order.paid", targetUrl: MARKUP.js },
          }),
      ],
    ];
    const wrong: string[] = [];
    for (const [what, request] of refused) {
      const res = await request();
      if (res.response.status !== 400 || res.error?.error.code !== "VALIDATION_FAILED")
        wrong.push(`${what}: ${res.response.status} ${text(res).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    // What was accepted is kept exactly as written.
    const o1 = await ok(
      dash.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: { path: { slug: S1, id: ids.o1 } } }),
    );
    assert.equal(o1.name, "../..1001");
    assert.equal(o1.note, MARKUP_LINES);
    assert.deepEqual(o1.fulfillment, {
      ...o1.fulfillment,
      carrier: MARKUP.img,
      trackingNumber: MARKUP.svg,
      trackingUrl: A1_TRACKING,
    });
  });

  /** Every page that shows what was written, with what shows it is there, and what to open on it. */
  const PAGES: Array<{
    name: string;
    path: () => string;
    shows: () => string;
    steps?: (p: Page) => AsyncGenerator<string>;
    /** Photographed at phone width (into test/ui/pages.ts's SHOTS), to be looked at. */
    shot?: string;
  }> = [
    { name: "stores", path: () => "/", shows: () => MARKUP.svg },
    { name: "overview", path: () => `/stores/${S1}`, shows: () => "../..1001" },
    {
      name: "overview of the markup store",
      path: () => `/stores/${S2}`,
      shows: () => `${MARKUP.img} ${MARKUP.svg}`,
    },
    {
      name: "products",
      path: () => `/stores/${S1}/products`,
      shows: () => ALL_MARKUP,
      async *steps(p) {
        // Newest first: P3, P2, P1.
        for (const [n, title] of [`${MARKUP.js} ${MARKUP.rtl}`, longWord(255), ALL_MARKUP].entries()) {
          // Each product's own page (issue 32), from the list's Edit link.
          await p.locator("tbody tr").nth(n).getByRole("link", { name: /^Edit/ }).click();
          const h1 = p.getByRole("heading", { level: 1 });
          await p.getByRole("region", { name: "Details" }).getByLabel("Title", { exact: true }).waitFor();
          assert.equal(await h1.textContent(), title);
          assert.equal(
            await p
              .getByRole("region", { name: "Details" })
              .getByLabel("Title", { exact: true })
              .inputValue(),
            title,
          );
          yield `product page "${title.slice(0, 20)}"`;
          await p.getByRole("link", { name: "Back to products" }).first().click();
          await p.locator("tbody tr").nth(n).waitFor();
        }
      },
    },
    { name: "customers", path: () => `/stores/${S1}/customers`, shows: () => MARKUP.script },
    {
      name: "customer with markup",
      shot: "customer-markup",
      path: () => `/stores/${S1}/customers/${ids.c1}`,
      shows: () => MARKUP.js,
    },
    {
      name: "customer with long words",
      shot: "customer-long",
      path: () => `/stores/${S1}/customers/${ids.c2}`,
      shows: () => longWord(500),
    },
    {
      name: "customer with an override",
      path: () => `/stores/${S1}/customers/${ids.c3}`,
      shows: () => "/../../1003",
    },
    { name: "orders", path: () => `/stores/${S1}/orders`, shows: () => "../../1002" },
    {
      name: "order with markup",
      shot: "order-markup",
      path: () => `/stores/${S1}/orders/${ids.o1}`,
      shows: () => MARKUP.svg,
    },
    {
      name: "order with long words",
      shot: "order-long",
      path: () => `/stores/${S1}/orders/${ids.o2}`,
      shows: () => longWord(500),
    },
    {
      name: "order with an override",
      path: () => `/stores/${S1}/orders/${ids.o3}`,
      shows: () => "Follow the parcel",
    },
    {
      name: "new order",
      path: () => `/stores/${S1}/orders/new`,
      shows: () => longWord(255),
      async *steps(p) {
        await p.getByRole("button", { name: `Choose ${MARKUP.img}` }).click();
        const found = p.getByRole("list", { name: "Products found" }).getByRole("listitem");
        await found
          .filter({ hasText: longWord(255) })
          .getByRole("button")
          .click();
        await found.filter({ hasText: MARKUP.script }).getByRole("button").click();
        await p.getByRole("list", { name: "Order lines" }).getByRole("listitem").nth(1).waitFor();
        yield "with a customer and two lines";
      },
    },
    {
      name: "settings",
      path: () => `/stores/${S1}/settings`,
      shows: () => "New orders are named /../../1001",
    },
    { name: "installed apps", path: () => `/stores/${S1}/apps`, shows: () => longWord(100) },
    {
      name: "app directory",
      shot: "app-directory",
      path: () => `/stores/${S1}/app-directory`,
      shows: () => `${MARKUP.img} ${MARKUP.rtl}`,
      async *steps(p) {
        // Each becomes "Show less" once clicked: click the first left until none is.
        const more = p.getByRole("button", { name: "Read more" });
        for (let n = await more.count(); n > 0; n--) await more.first().click();
        assert.equal(await more.count(), 0);
        yield "every description read in full";
      },
    },
    {
      name: "API keys",
      path: () => `/stores/${S1}/api-keys`,
      shows: () => `${MARKUP.img} ${MARKUP.script}`,
      async *steps(p) {
        await row(p, longWord(100)).getByRole("button", { name: "Revoke" }).click();
        const dialog = p.getByRole("dialog");
        await dialog.waitFor();
        yield "revoke dialog";
        await dialog.getByRole("button", { name: "Keep it" }).click();
        await dialog.waitFor({ state: "detached" });
      },
    },
    { name: "account", path: () => "/account", shows: () => longWord(100) },
    { name: "my apps", path: () => "/apps", shows: () => MARKUP.script },
    ...(["a1", "a2"] as const).map((app) => ({
      name: `app page ${app}`,
      path: () => `/apps/${apps[app].clientId}`,
      shows: () => (app === "a1" ? A1_REDIRECT : A2_REDIRECT),
      async *steps(p: Page) {
        // The oldest delivery: the one that was answered (A2's later ones were skipped, disabled).
        const attempts = p.getByRole("button", { name: "Attempts", exact: true }).last();
        await attempts.click();
        await p.locator(".attempts-row").first().waitFor();
        yield "delivery attempts";
      },
    })),
    ...(["a1", "a2"] as const).map((app) => ({
      name: `consent for ${app}`,
      path: () =>
        `/api/v1/apps/authorize?${new URLSearchParams({
          client_id: apps[app].clientId,
          redirect_uri: app === "a1" ? A1_REDIRECT : A2_REDIRECT,
          response_type: "code",
          scope: APP_SCOPES.join(" "),
          state: "s",
        })}`,
      shows: () => "Approve and install",
    })),
    {
      name: "authorize refusal",
      path: () =>
        `/api/v1/apps/authorize?${new URLSearchParams({
          client_id: apps.a1.clientId,
          redirect_uri: `${A1_REDIRECT}${MARKUP.svg}`,
          response_type: "code",
          scope: "read_products",
        })}`,
      shows: () => "Cannot authorize this app",
    },
    { name: "not found", path: () => "/orders", shows: () => `Orders of ${MARKUP.img}` },
  ];

  it("runs nothing, overflows nothing and links nowhere else, on every page at 1366×800 and 390×844", async () => {
    const failures: string[] = [];
    for (const [label, viewport] of [
      ["1366", DESKTOP],
      ["390", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const p of PAGES) {
        const where = `${p.name} at ${label}`;
        await page.goto(`${base}${p.path()}`);
        await page.getByText(p.shows()).filter({ visible: true }).first().waitFor();
        await page.locator('main[aria-busy="false"], main:not([aria-busy])').first().waitFor();
        await check(where, failures);
        if (p.shot && viewport === PHONE) await shoot(page, `hostile-${p.shot}-390`);
        if (p.steps) for await (const step of p.steps(page)) await check(`${where}, ${step}`, failures);
      }
      // The phone's menu: the store names and the merchant's name in the folded sidebar.
      await page.goto(`${base}/stores/${S1}/orders`);
      await page.getByText("../../1002").waitFor();
      if (viewport === PHONE) {
        await page.getByRole("button", { name: "Menu" }).click();
        await page.getByRole("navigation", { name: "Main" }).waitFor();
      }
      await check(`sidebar at ${label}`, failures);
    }
    for (const r of ran.splice(0)) failures.push(`after the last page: ran ${r}`);
    assert.deepEqual(failures, []);
    assert.deepEqual(errors, []);
  });

  it("names orders with a path-like prefix and still reaches each by its id; /../../admin is refused", async () => {
    const names = new Map([
      [ids.o1, "../..1001"],
      [ids.o2, "../../1002"],
      [ids.o3, "/../../1003"],
    ]);
    const hrefs = () =>
      page.evaluate(() =>
        Array.from((globalThis as unknown as Win).document.querySelectorAll("a")).map(
          (a) => [a.textContent ?? "", a.getAttribute("href") ?? ""] as const,
        ),
      );
    const orderLinks: string[] = [];
    for (const path of [`/stores/${S1}/orders`, `/stores/${S1}`, `/stores/${S1}/customers/${ids.c3}`]) {
      await page.goto(`${base}${path}`);
      await page.getByText("/../../1003").first().waitFor();
      for (const [text, href] of await hrefs()) {
        const id = [...names].find(([, name]) => name === text.trim())?.[0];
        if (id)
          orderLinks.push(`${path}: ${text} -> ${href === `/stores/${S1}/orders/${id}` ? "its page" : href}`);
      }
    }
    assert.ok(orderLinks.length >= 5, orderLinks.join("\n"));
    assert.deepEqual(
      orderLinks.filter((l) => !l.endsWith("its page")),
      [],
    );
    // Followed from the list: the order's own page, by id.
    await page.goto(`${base}/stores/${S1}/orders`);
    await page.getByRole("link", { name: "/../../1003", exact: true }).click();
    await heading(page, "Order /../../1003");
    assert.equal(new URL(page.url()).pathname, `/stores/${S1}/orders/${ids.o3}`);
    // Searched for by its name (under the store's present prefix), which is not read as a path either.
    const found = await ok(
      dash.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: S1 }, query: { q: "/../../1003" } },
      }),
    );
    assert.deepEqual(
      found.map((o) => o.id),
      [ids.o3],
    );
    // Settings: the form refuses what the contract refuses, beside the field, before sending.
    await page.goto(`${base}/stores/${S1}/settings`);
    await heading(page, "Settings");
    await page.getByLabel("Order number prefix").fill("/../../admin");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.locator(".field-error", { hasText: "must be at most 10 characters" }).waitFor();
    const stored = await ok(dash.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: S1 } } }));
    assert.equal(stored.orderNumberPrefix, "/../../");
    await shoot(page, "hostile-settings-1366");
  });

  it("installs the app with a hostile name and redirect URI through the consent page, back to exactly that URI", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(
      `${base}/api/v1/apps/authorize?${new URLSearchParams({
        client_id: apps.a1.clientId,
        redirect_uri: A1_REDIRECT,
        response_type: "code",
        scope: "read_products",
        state: "s",
        store: S2,
      })}`,
    );
    await page.getByRole("heading", { name: /^Install / }).waitFor();
    assert.equal(
      await page.getByRole("heading", { level: 1 }).textContent(),
      `Install ${MARKUP.img}${MARKUP.script} ${MARKUP.rtl}?`,
    );
    await shoot(page, "hostile-consent-390");
    await Promise.all([
      page.waitForURL((u) => u.hostname === "app.example.com"),
      page.getByRole("button", { name: "Approve and install" }).click(),
    ]);
    const back = new URL(page.url());
    const registered = new URL(A1_REDIRECT);
    assert.equal(back.pathname, registered.pathname);
    assert.equal(back.searchParams.get("next"), registered.searchParams.get("next"));
    assert.match(back.searchParams.get("code") ?? "", /^mpac_/);
    assert.equal(back.searchParams.get("slug"), S2);
    assert.deepEqual(ran, []);
  });
});
