import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { consent, REDIRECT } from "./apps-harness.ts";
import {
  type Api,
  apiClient,
  createTestContext,
  errorCode,
  fieldErrors,
  merchantWithStore,
  offDocument,
  ok,
  type RequestBody,
  type Scope,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

type Listing = RequestBody<"/api/v1/dashboard/apps/{clientId}/listing", "put">;
type Merchant = Awaited<ReturnType<typeof merchantWithStore>>;

const LISTING: Listing = {
  tagline: "Keeps stock in step with your warehouse",
  description: "Syncs stock levels with your warehouse every five minutes.\nNo spreadsheets.",
  appUrl: "https://stock-sync.example.com/",
  supportEmail: "help@stock-sync.example.com",
  iconColor: "teal",
  status: "draft",
};

/**
 * The app directory (issue 32, part 4) through the HTTP API: a developer writes a listing (a draft
 * nobody else sees), publishes it (only with a privacy endpoint), and merchants find it in their
 * store's directory with the app's own name and scopes, installed or not in their store; search,
 * pages, unpublishing and deleting the app; every answer checked against the served document.
 * Happy, error and security paths.
 */
describe("the app directory", () => {
  let ctx: TestContext;
  let spec: Awaited<ReturnType<typeof openApiChecker>>;
  before(async () => {
    // The privacy endpoint on localhost (no delivery is made to it here).
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }, { frozenClock: true });
    spec = await openApiChecker(ctx.app);
  });
  after(async () => {
    await ctx?.close();
  });

  /** A developer with an app (and its privacy endpoint unless told otherwise). */
  async function developer(name: string, scopes: Scope[], privacy = true) {
    const dev = await merchantWithStore(ctx.app);
    const client = spec.watch(dev.client);
    const made = ok(
      await client.POST("/api/v1/dashboard/apps", {
        body: {
          name,
          redirectUris: [REDIRECT],
          scopes,
          ...(privacy ? { privacyWebhookUrl: "http://localhost:9/privacy" } : {}),
        },
      }),
      201,
    ).data;
    return { ...dev, client, clientId: made.clientId, clientSecret: made.clientSecret };
  }
  const put = (client: Api, clientId: string, body: Listing) =>
    client.PUT("/api/v1/dashboard/apps/{clientId}/listing", { params: { path: { clientId } }, body });
  const directory = async (
    m: { client: Api; slug: string },
    query: { q?: string; limit?: number; cursor?: string } = {},
  ) =>
    ok(
      await spec.watch(m.client).GET("/api/v1/dashboard/stores/{slug}/app-directory", {
        params: { path: { slug: m.slug }, query },
      }),
    );
  const names = async (m: { client: Api; slug: string }, q?: string) =>
    (await directory(m, q === undefined ? {} : { q })).data.map((e) => e.name);

  it("keeps a draft to its developer, publishes only with a privacy endpoint, and lists the app's own name and scopes", async () => {
    const dev = await developer("Stock Sync", ["write_inventory", "read_products"], false);
    const merchant = await merchantWithStore(ctx.app);

    // Before the first save there is no listing.
    const none = ok(
      await dev.client.GET("/api/v1/dashboard/apps/{clientId}/listing", {
        params: { path: { clientId: dev.clientId } },
      }),
    );
    assert.equal(none.data, null);

    const draft = ok(await put(dev.client, dev.clientId, LISTING)).data;
    assert.equal(draft.status, "draft");
    assert.equal(draft.publishedAt, null);
    assert.equal(draft.name, "Stock Sync");
    assert.deepEqual(draft.scopes, ["read_products", "write_inventory"]);
    assert.equal(draft.description, LISTING.description, "line breaks kept, text as written");

    // A draft is in no store's directory: not another merchant's, not the developer's own.
    assert.ok(!(await names(merchant)).includes("Stock Sync"));
    assert.ok(!(await names(dev)).includes("Stock Sync"));

    // Publishing needs the app's privacy endpoint: 409, and the listing stays a draft.
    const refused = await put(dev.client, dev.clientId, { ...LISTING, status: "published" });
    assert.equal(refused.response.status, 409, text(refused));
    assert.equal(errorCode(refused), "CONFLICT");
    assert.match(fieldErrors(refused)[0]!.field, /status/);
    assert.ok(!(await names(merchant)).includes("Stock Sync"));

    ok(
      await dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: dev.clientId } },
        body: { privacyWebhookUrl: "http://localhost:9/privacy" },
      }),
    );
    const published = ok(await put(dev.client, dev.clientId, { ...LISTING, status: "published" })).data;
    assert.equal(published.status, "published");
    assert.equal(published.publishedAt, ctx.clock.now().toISOString());

    const entry = (await directory(merchant, { q: "Stock Sync" })).data.find(
      (e) => e.clientId === dev.clientId,
    );
    assert.ok(entry, "published: in another merchant's directory");
    assert.deepEqual(
      { ...entry, publishedAt: undefined },
      {
        clientId: dev.clientId,
        name: "Stock Sync",
        scopes: ["read_products", "write_inventory"],
        tagline: LISTING.tagline,
        description: LISTING.description,
        appUrl: LISTING.appUrl,
        supportEmail: LISTING.supportEmail,
        iconColor: "teal",
        installed: false,
        publishedAt: undefined,
      },
    );

    // A save of a published listing keeps it published and keeps when it was published.
    const before = published.publishedAt;
    ctx.clock.advance(60_000);
    const edited = ok(
      await put(dev.client, dev.clientId, { ...LISTING, tagline: "Stock, in step", status: "published" }),
    ).data;
    assert.equal(edited.publishedAt, before);
    assert.equal(edited.updatedAt, ctx.clock.now().toISOString());

    // The name and scopes are the app's, declared once: a change on the app is the listing's.
    ok(
      await dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: dev.clientId } },
        body: { name: "Stock Sync Pro", scopes: ["read_inventory", "read_products", "write_inventory"] },
      }),
    );
    const renamed = (await directory(merchant, { q: "Stock Sync Pro" })).data[0]!;
    assert.equal(renamed.clientId, dev.clientId);
    assert.deepEqual(renamed.scopes, ["read_inventory", "read_products", "write_inventory"]);
    assert.equal(renamed.tagline, "Stock, in step");

    // Unpublished: gone from the directory; published again: a new publication time.
    ok(await put(dev.client, dev.clientId, { ...LISTING, status: "draft" }));
    assert.ok(!(await names(merchant, "Stock Sync")).length);
    ctx.clock.advance(60_000);
    const again = ok(await put(dev.client, dev.clientId, { ...LISTING, status: "published" })).data;
    assert.equal(again.publishedAt, ctx.clock.now().toISOString());
    assert.deepEqual(await names(merchant, "Stock Sync"), ["Stock Sync Pro"]);
  });

  it("says per store whether the app is installed, and asks at consent no more than the listing shows", async () => {
    const dev = await developer("Label Printer", ["read_orders", "write_orders"]);
    ok(await put(dev.client, dev.clientId, { ...LISTING, status: "published" }));
    const alice = await merchantWithStore(ctx.app);
    const bob = await merchantWithStore(ctx.app);
    const installed = async (m: Merchant) =>
      (await directory(m, { q: "Label Printer" })).data.find((e) => e.clientId === dev.clientId)?.installed;
    assert.equal(await installed(alice), false);

    // The scopes the listing shows are the most the consent page lets the app ask for.
    const extra = await alice.client.GET("/api/v1/dashboard/oauth/consent", {
      params: {
        query: {
          response_type: "code",
          client_id: dev.clientId,
          redirect_uri: REDIRECT,
          scope: "read_orders read_customers",
        },
      },
    });
    assert.equal(extra.response.status, 400, text(extra));
    assert.match(text(extra), /not registered for: read_customers/);

    await consent(alice, dev.clientId, ["read_orders", "write_orders"]);
    assert.equal(await installed(alice), true);
    assert.equal(await installed(bob), false, "installed in Alice's store, not Bob's");

    ok(
      await alice.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
        params: { path: { slug: alice.slug, clientId: dev.clientId } },
      }),
    );
    assert.equal(await installed(alice), false);

    // A deleted app leaves every directory.
    ok(
      await dev.client.DELETE("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: dev.clientId } },
      }),
    );
    assert.equal(await installed(bob), undefined);
  });

  it("searches names, taglines and descriptions, with wildcards taken literally, a page at a time", async () => {
    const tag = `zq${Date.now().toString(36)}`;
    const made: string[] = [];
    for (const [name, tagline] of [
      [`${tag} Beta`, "Reviews 100% moderated"],
      [`${tag} Alpha`, "Newsletters"],
      [`${tag} Gamma`, "Gift wrap"],
    ] as const) {
      const dev = await developer(name, ["read_products"]);
      ok(await put(dev.client, dev.clientId, { ...LISTING, tagline, status: "published" }));
      made.push(dev.clientId);
    }
    const merchant = await merchantWithStore(ctx.app);
    assert.deepEqual(
      await names(merchant, tag),
      [`${tag} Alpha`, `${tag} Beta`, `${tag} Gamma`],
      "name order",
    );
    assert.deepEqual(await names(merchant, tag.toUpperCase()), [
      `${tag} Alpha`,
      `${tag} Beta`,
      `${tag} Gamma`,
    ]);
    assert.deepEqual(await names(merchant, "0% mod"), [`${tag} Beta`], "% is a character, not a wildcard");
    assert.deepEqual(await names(merchant, "Gift wrap"), [`${tag} Gamma`]);
    assert.deepEqual(await names(merchant, "_x_x_"), [], "_ is a character too");

    // Pages of one, in name order, each cursor bound to its search.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await directory(merchant, { q: tag, limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((e) => e.name));
      cursor = page.meta.nextCursor ?? undefined;
      if (seen.length === 1) {
        const other = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/app-directory", {
          params: { path: { slug: merchant.slug }, query: { q: "Newsletters", cursor: cursor! } },
        });
        assert.equal(other.response.status, 400, "a cursor made for another search");
      }
    } while (cursor);
    assert.deepEqual(seen, [`${tag} Alpha`, `${tag} Beta`, `${tag} Gamma`]);

    for (const q of ["ab", "   ", "x".repeat(101)]) {
      const res = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/app-directory", {
        params: { path: { slug: merchant.slug }, query: { q } },
      });
      assert.equal(res.response.status, 400, `q=${JSON.stringify(q)}: ${text(res)}`);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
    }
  });

  it("refuses a listing it could not show safely, field by field", async () => {
    const dev = await developer("Careful App", ["read_products"]);
    const bad: Array<[string, Partial<Record<keyof Listing, unknown>> & Record<string, unknown>]> = [
      ["appUrl", { appUrl: "javascript:alert(1)" }],
      ["appUrl", { appUrl: "http://app.example.com/" }],
      ["appUrl", { appUrl: "https://app.example.com/#install" }],
      ["appUrl", { appUrl: `https://app.example.com/${"a".repeat(2000)}` }],
      ["tagline", { tagline: "" }],
      ["tagline", { tagline: "   " }],
      ["tagline", { tagline: "t".repeat(121) }],
      ["description", { description: "d".repeat(2001) }],
      ["supportEmail", { supportEmail: "not an address" }],
      ["supportEmail", { supportEmail: `${"a".repeat(250)}@example.com` }],
      ["iconColor", { iconColor: "#ff0000" }],
      ["status", { status: "live" }],
      ["iconUrl", { iconUrl: "https://evil.example.com/pixel.png" }],
    ];
    for (const [field, change] of bad) {
      const res = await put(dev.client, dev.clientId, offDocument({ ...LISTING, ...change }));
      assert.equal(res.response.status, 400, `${JSON.stringify(change).slice(0, 80)}: ${text(res)}`);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.ok(
        fieldErrors(res).some((d) => d.field.includes(field)),
        `${field}: ${JSON.stringify(fieldErrors(res))}`,
      );
    }
    // Nothing was saved.
    const after = ok(
      await dev.client.GET("/api/v1/dashboard/apps/{clientId}/listing", {
        params: { path: { clientId: dev.clientId } },
      }),
    );
    assert.equal(after.data, null);

    // Loopback http is the development address an app may give, as for its redirect URIs.
    const local = ok(
      await put(dev.client, dev.clientId, { ...LISTING, appUrl: "http://localhost:8080/?ref=directory" }),
    ).data;
    assert.equal(local.appUrl, "http://localhost:8080/?ref=directory");
    // Text is kept as written (markup included): the dashboard shows it as text.
    const markup = "<img src=x onerror=alert(1)> & <b>bold</b>";
    assert.equal(
      ok(await put(dev.client, dev.clientId, { ...LISTING, description: markup })).data.description,
      markup,
    );
  });

  it("lets no one else read or write a developer's listing", async () => {
    const dev = await developer("Private Draft", ["read_products"]);
    ok(await put(dev.client, dev.clientId, LISTING));
    const other = await merchantWithStore(ctx.app);
    const read = await other.client.GET("/api/v1/dashboard/apps/{clientId}/listing", {
      params: { path: { clientId: dev.clientId } },
    });
    assert.equal(read.response.status, 404);
    assert.equal(errorCode(read), "NOT_FOUND");
    const write = await put(other.client, dev.clientId, { ...LISTING, status: "published" });
    assert.equal(write.response.status, 404);
    const anonymous = await put(apiClient(ctx.app), dev.clientId, { ...LISTING, status: "published" });
    assert.equal(anonymous.response.status, 401);
    // Another merchant's store's directory is 404, never 403.
    const foreign = await other.client.GET("/api/v1/dashboard/stores/{slug}/app-directory", {
      params: { path: { slug: dev.slug } },
    });
    assert.equal(foreign.response.status, 404);
    // Still a draft, still the developer's own words.
    const mine = ok(
      await dev.client.GET("/api/v1/dashboard/apps/{clientId}/listing", {
        params: { path: { clientId: dev.clientId } },
      }),
    ).data!;
    assert.equal(mine.status, "draft");
    assert.ok(!(await names(other, "Private Draft")).length);
  });
});
