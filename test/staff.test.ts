import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { INVITATION_TTL_DAYS, MAX_STAFF_PER_STORE, Scope } from "../src/contracts/index.ts";
import { consent, REDIRECT } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type Api,
  apiClient,
  createTestContext,
  merchantWithStore,
  type TestContext,
  text,
  uniqueEmail,
} from "./harness.ts";

/**
 * Staff with roles (issue 32, part 3): invitations by e-mail (single use, expiring, for the
 * invited address only), what each role may do in the dashboard, the rules an admin is held to,
 * removal signing the member out, and the histories naming who acted. The generated check of every
 * dashboard operation against every role is test/roles.test.ts.
 */

const PASSWORD = "correct horse battery";

describe("staff: invitations, roles, removal", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  /** The newest e-mail queued to `to` in the mail outbox (the mail component sends it from there). */
  const lastMailTo = (to: string) =>
    ctx.platform.db
      .selectFrom("mail_messages")
      .select(["to_address", "subject", "text_body", "html_body", "kind"])
      .where("to_address", "=", to)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
  after(() => ctx.close());

  async function signUp(email = uniqueEmail("staff"), name = "Sam Staff") {
    const client = apiClient(ctx.app);
    const res = await client.POST("/api/v1/dashboard/auth/signup", {
      body: { email, password: PASSWORD, name },
    });
    assert.equal(res.response.status, 201, text(res));
    return { client, email, name, id: res.data!.data.id };
  }
  async function invite(
    owner: { client: Api; slug: string },
    email: string,
    role: "admin" | "orders" | "catalogue" | "read_only",
  ) {
    const res = await owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
      params: { path: { slug: owner.slug } },
      body: { email, role },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  }
  const tokenOf = (acceptUrl: string) => new URL(acceptUrl).hash.replace(/^#token=/, "");
  async function accept(client: Api, token: string) {
    return client.POST("/api/v1/dashboard/invitations/accept", { body: { token } });
  }
  /** A member with `role` in the owner's store, signed in. */
  async function member(
    owner: { client: Api; slug: string },
    role: "admin" | "orders" | "catalogue" | "read_only",
    name?: string,
  ) {
    const person = await signUp(undefined, name);
    const invited = await invite(owner, person.email, role);
    const res = await accept(person.client, tokenOf(invited.acceptUrl));
    assert.equal(res.response.status, 200, text(res));
    return person;
  }

  it("invites by e-mail: the message carries a single-use link for the invited address, accepted by a new account", async () => {
    const owner = await merchantWithStore(ctx.app);
    const email = uniqueEmail("new-staff");
    const invited = await invite(owner, email, "catalogue");
    assert.equal(invited.invitation.role, "catalogue");
    assert.equal(invited.invitation.invitedBy, "Test Merchant");
    const message = await lastMailTo(email);
    assert.equal(message.kind, "staff_invitation");
    assert.match(message.subject, /Test Merchant invited you to work in Test Store/);
    assert.ok(message.text_body.includes(invited.acceptUrl), "the e-mail carries the link");
    assert.ok(message.html_body.includes(invited.acceptUrl));
    assert.match(invited.acceptUrl, /^http:\/\/localhost:\d+\/invitation#token=mpinv_/);
    const token = tokenOf(invited.acceptUrl);
    const hashed = await ctx.platform.db
      .selectFrom("store_invitations")
      .select("token_hash")
      .where("id", "=", invited.invitation.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(hashed.token_hash, token, "only the hash is stored");
    assert.equal(hashed.token_hash.length, 64);

    // Anyone holding the link reads what it offers, signed in or not.
    const anonymous = apiClient(ctx.app);
    const preview = await anonymous.POST("/api/v1/dashboard/invitations/lookup", { body: { token } });
    assert.equal(preview.response.status, 200, text(preview));
    assert.deepEqual(
      { store: preview.data!.data.storeName, email: preview.data!.data.email, role: preview.data!.data.role },
      { store: "Test Store", email, role: "catalogue" },
    );
    assert.equal(
      (await anonymous.POST("/api/v1/dashboard/invitations/accept", { body: { token } })).response.status,
      401,
    );

    // Another address cannot take it.
    const other = await signUp();
    const wrong = await accept(other.client, token);
    assert.equal(wrong.response.status, 403, text(wrong));
    assert.equal(wrong.error!.error.code, "FORBIDDEN");
    assert.match(wrong.error!.error.message, new RegExp(email.replace(/[.+]/g, "\\$&")));

    // The invited address, as a new account (any case), joins with the role; the link is then used.
    const person = await signUp(email.toUpperCase());
    const accepted = await accept(person.client, token);
    assert.equal(accepted.response.status, 200, text(accepted));
    assert.deepEqual(accepted.data!.data, {
      store: { slug: owner.slug, name: "Test Store" },
      role: "catalogue",
    });
    const again = await accept(person.client, token);
    assert.equal(again.response.status, 404);
    assert.equal(
      (await anonymous.POST("/api/v1/dashboard/invitations/lookup", { body: { token } })).response.status,
      404,
    );

    // Their store list has the store, with the role and what it allows.
    const stores = await person.client.GET("/api/v1/dashboard/stores");
    assert.equal(stores.response.status, 200);
    const listed = stores.data!.data.find((s) => s.slug === owner.slug)!;
    assert.equal(listed.role, "catalogue");
    assert.ok(listed.permissions.includes(Scope.write_products));
    assert.ok(!listed.permissions.includes(Scope.write_orders));
    const ownerStores = await owner.client.GET("/api/v1/dashboard/stores");
    assert.equal(ownerStores.data!.data.find((s) => s.slug === owner.slug)!.role, "owner");

    // The staff page lists the owner first, then the member; the invitation is no longer open.
    const staff = await owner.client.GET("/api/v1/dashboard/stores/{slug}/staff", {
      params: { path: { slug: owner.slug } },
    });
    assert.equal(staff.response.status, 200, text(staff));
    assert.deepEqual(
      staff.data!.data.members.map((m) => m.role),
      ["owner", "catalogue"],
    );
    assert.equal(staff.data!.data.invitations.length, 0);
  });

  it("refuses malformed, unknown, withdrawn and expired invitations", async () => {
    const owner = await merchantWithStore(ctx.app);
    const anonymous = apiClient(ctx.app);
    const malformed = await anonymous.POST("/api/v1/dashboard/invitations/lookup", {
      body: { token: "nope" },
    });
    assert.equal(malformed.response.status, 400);
    const unknown = await anonymous.POST("/api/v1/dashboard/invitations/lookup", {
      body: { token: `mpinv_${"a".repeat(43)}` },
    });
    assert.equal(unknown.response.status, 404);
    assert.equal(unknown.error!.error.code, "NOT_FOUND");

    const person = await signUp();
    const first = await invite(owner, person.email, "orders");
    const withdrawn = await owner.client.DELETE(
      "/api/v1/dashboard/stores/{slug}/staff/invitations/{invitationId}",
      {
        params: { path: { slug: owner.slug, invitationId: first.invitation.id } },
      },
    );
    assert.equal(withdrawn.response.status, 200, text(withdrawn));
    assert.equal((await accept(person.client, tokenOf(first.acceptUrl))).response.status, 404);

    // Inviting again replaces the open invitation: the older link stops working.
    const second = await invite(owner, person.email, "orders");
    const third = await invite(owner, person.email, "read_only");
    assert.equal((await accept(person.client, tokenOf(second.acceptUrl))).response.status, 404);
    const list = await owner.client.GET("/api/v1/dashboard/stores/{slug}/staff", {
      params: { path: { slug: owner.slug } },
    });
    assert.deepEqual(
      list.data!.data.invitations.map((i) => i.role),
      ["read_only"],
    );

    ctx.clock.advance((INVITATION_TTL_DAYS * 24 + 1) * 3_600_000);
    const lookedUp = await anonymous.POST("/api/v1/dashboard/invitations/lookup", {
      body: { token: tokenOf(third.acceptUrl) },
    });
    assert.equal(lookedUp.response.status, 404);
    // A week on, both sign in again (sessions have ended too): the expired link is refused.
    for (const who of [person, owner])
      assert.equal(
        (
          await who.client.POST("/api/v1/dashboard/auth/login", {
            body: { email: who.email, password: PASSWORD },
          })
        ).response.status,
        200,
      );
    const expired = await accept(person.client, tokenOf(third.acceptUrl));
    assert.equal(expired.response.status, 404);
    const listed = await owner.client.GET("/api/v1/dashboard/stores/{slug}/staff", {
      params: { path: { slug: owner.slug } },
    });
    assert.equal(listed.data!.data.invitations[0]!.expired, true);
  });

  it("refuses to invite the owner or a member, and bounds a burst of invitations", async () => {
    const owner = await merchantWithStore(ctx.app);
    const ownerInvite = await owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
      params: { path: { slug: owner.slug } },
      body: { email: owner.email, role: "admin" },
    });
    assert.equal(ownerInvite.response.status, 409);
    const sam = await member(owner, "orders");
    const twice = await owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
      params: { path: { slug: owner.slug } },
      body: { email: sam.email, role: "admin" },
    });
    assert.equal(twice.response.status, 409);
    assert.equal(twice.error!.error.code, "CONFLICT");
    const badRole = await owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
      params: { path: { slug: owner.slug } },
      // @ts-expect-error the owner's role is not one staff can be given
      body: { email: uniqueEmail(), role: "owner" },
    });
    assert.equal(badRole.response.status, 400);

    // One member already; the seats filled but five, one by one through the service; then a burst
    // of twelve invitations leaves exactly the last five seats taken (reserved under the lock).
    const store = (await ctx.platform.services.stores.getForAccount(sam.id, owner.slug)).store;
    const ownerId = store.owner_account_id;
    for (let i = 0; i < MAX_STAFF_PER_STORE - 1 - 5; i++)
      await ctx.platform.staff.invite(
        store,
        { id: ownerId, name: "Owner" },
        { email: `seat-${i}@example.com`, role: "read_only" },
      );
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
          params: { path: { slug: owner.slug } },
          body: { email: `burst-${i}@example.com`, role: "read_only" },
        }),
      ),
    );
    const statuses = burst.map((r) => r.response.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(" "));
    assert.ok(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(" "),
    );
    const list = await owner.client.GET("/api/v1/dashboard/stores/{slug}/staff", {
      params: { path: { slug: owner.slug } },
    });
    assert.equal(
      list.data!.data.members.length - 1 + list.data!.data.invitations.length,
      MAX_STAFF_PER_STORE,
    );
  });

  it("uses a link once when twenty requests race to accept it", async () => {
    const owner = await merchantWithStore(ctx.app);
    const person = await signUp();
    const invited = await invite(owner, person.email, "read_only");
    const token = tokenOf(invited.acceptUrl);
    const answers = await Promise.all(Array.from({ length: 20 }, () => accept(person.client, token)));
    const statuses = answers.map((a) => a.response.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(" "));
    assert.ok(
      statuses.every((s) => s === 200 || s === 404),
      statuses.join(" "),
    );
    const rows = await ctx.platform.db
      .selectFrom("store_members")
      .selectAll()
      .where("account_id", "=", person.id)
      .execute();
    assert.equal(rows.length, 1);
  });

  it("lets each role do its part: catalogue edits products, not orders; read-only changes nothing; another store stays 404", async () => {
    const owner = await merchantWithStore(ctx.app);
    const elsewhere = await merchantWithStore(ctx.app);
    const cat = await member(owner, "catalogue");
    const reader = await member(owner, "read_only");
    const path = { params: { path: { slug: owner.slug } } };

    const product = await cat.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      ...path,
      body: flat({ title: "Mug", price: "7.25", stock: 3 }),
    });
    assert.equal(product.response.status, 201, text(product));
    const customer = await cat.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      ...path,
      body: { email: "c@example.com", firstName: "C" },
    });
    assert.equal(customer.response.status, 403);
    assert.equal(customer.error!.error.code, "INSUFFICIENT_SCOPE");
    assert.match(customer.error!.error.message, /write_customers/);
    assert.equal((await cat.client.GET("/api/v1/dashboard/stores/{slug}/orders", path)).response.status, 200);
    assert.equal((await cat.client.GET("/api/v1/dashboard/stores/{slug}/staff", path)).response.status, 403);
    const settings = await cat.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      ...path,
      body: { name: "Mine now" },
    });
    assert.equal(settings.response.status, 403);
    const key = await cat.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      ...path,
      body: { name: "Mine", scopes: [Scope.read_products] },
    });
    assert.equal(key.response.status, 403, "only the owner and admins make key pairs");

    assert.equal(
      (await reader.client.GET("/api/v1/dashboard/stores/{slug}/products", path)).response.status,
      200,
    );
    const write = await reader.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      ...path,
      body: flat({ title: "Nope", price: "1" }),
    });
    assert.equal(write.response.status, 403);
    assert.equal((await reader.client.GET("/api/v1/dashboard/stores/{slug}", path)).response.status, 200);

    // Another tenant's store: 404, never 403, whatever the role here.
    const other = await cat.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: elsewhere.slug } },
    });
    assert.equal(other.response.status, 404);
    assert.equal(other.error!.error.code, "NOT_FOUND");
    const stores = await cat.client.GET("/api/v1/dashboard/stores");
    assert.deepEqual(
      stores.data!.data.map((s) => s.slug),
      [owner.slug],
    );
  });

  it("installing apps is the owner's and admins': the consent page offers other staff no store and refuses them", async () => {
    const owner = await merchantWithStore(ctx.app);
    const admin = await member(owner, "admin");
    const orders = await member(owner, "orders");
    const developer = await merchantWithStore(ctx.app);
    const registered = await developer.client.POST("/api/v1/dashboard/apps", {
      body: { name: "Staff test app", redirectUris: [REDIRECT], scopes: [Scope.read_products] },
    });
    assert.equal(registered.response.status, 201, text(registered));
    const { clientId } = registered.data!.data;
    const query = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: Scope.read_products,
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    } as const;
    const asOrders = await orders.client.GET("/api/v1/dashboard/oauth/consent", { params: { query } });
    assert.equal(asOrders.response.status, 200, text(asOrders));
    assert.deepEqual(asOrders.data!.data.stores, []);
    const asAdmin = await admin.client.GET("/api/v1/dashboard/oauth/consent", { params: { query } });
    assert.deepEqual(
      asAdmin.data!.data.stores.map((s) => s.slug),
      [owner.slug],
    );

    const body = {
      clientId,
      redirectUri: REDIRECT,
      scopes: [Scope.read_products],
      state: "s",
      codeChallenge: query.code_challenge,
      codeChallengeMethod: "S256" as const,
      storeSlug: owner.slug,
      approve: true,
    };
    const refused = await orders.client.POST("/api/v1/dashboard/oauth/consent", { body });
    assert.equal(refused.response.status, 403, text(refused));
    assert.equal(refused.error!.error.code, "INSUFFICIENT_SCOPE");
    const installed = await admin.client.POST("/api/v1/dashboard/oauth/consent", { body });
    assert.equal(installed.response.status, 200, text(installed));
    // The owner's own flow is unchanged (apps-harness consents as the owner).
    assert.ok((await consent(owner, clientId, [Scope.read_products])).code);
  });

  it("an admin manages staff but never the owner nor their own role; removing someone signs them out at once", async () => {
    const owner = await merchantWithStore(ctx.app);
    const admin = await member(owner, "admin", "Ada Admin");
    const sam = await member(owner, "orders", "Sam Orders");
    const path = (accountId: string) => ({ params: { path: { slug: owner.slug, accountId } } });
    const ownerAccount = (await owner.client.GET("/api/v1/dashboard/me")).data!.data.id;

    const demoteOwner = await admin.client.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(ownerAccount),
      body: { role: "read_only" },
    });
    assert.equal(demoteOwner.response.status, 403);
    assert.equal(demoteOwner.error!.error.code, "FORBIDDEN");
    const removeOwner = await admin.client.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(ownerAccount),
    });
    assert.equal(removeOwner.response.status, 403);
    const self = await admin.client.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(admin.id),
      body: { role: "orders" },
    });
    assert.equal(self.response.status, 403);
    const unknown = await admin.client.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(`acct_${"a".repeat(22)}`),
      body: { role: "orders" },
    });
    assert.equal(unknown.response.status, 404);

    // The admin moves Sam to catalogue: it counts from Sam's next request.
    const orders = await sam.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: owner.slug } },
    });
    assert.equal(orders.response.status, 200);
    const changed = await admin.client.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(sam.id),
      body: { role: "catalogue" },
    });
    assert.equal(changed.response.status, 200, text(changed));
    assert.equal(changed.data!.data.role, "catalogue");
    const now = await sam.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: owner.slug } },
    });
    assert.equal(now.response.status, 403);

    // A second session of Sam's, elsewhere: removal ends both.
    const laptop = apiClient(ctx.app);
    assert.equal(
      (await laptop.POST("/api/v1/dashboard/auth/login", { body: { email: sam.email, password: PASSWORD } }))
        .response.status,
      200,
    );
    const removed = await admin.client.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(sam.id),
    });
    assert.equal(removed.response.status, 200, text(removed));
    assert.equal(removed.data!.data.signedOutSessions, 2);
    assert.equal((await sam.client.GET("/api/v1/dashboard/me")).response.status, 401);
    assert.equal((await laptop.GET("/api/v1/dashboard/me")).response.status, 401);
    // Signed in again, the store is gone for them.
    const back = apiClient(ctx.app);
    await back.POST("/api/v1/dashboard/auth/login", { body: { email: sam.email, password: PASSWORD } });
    assert.equal(
      (await back.GET("/api/v1/dashboard/stores/{slug}/products", { params: { path: { slug: owner.slug } } }))
        .response.status,
      404,
    );
    assert.deepEqual((await back.GET("/api/v1/dashboard/stores")).data!.data, []);

    // The owner's own role cannot change either (it is their own), and an admin can be removed by the owner.
    const ownSelf = await owner.client.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(ownerAccount),
    });
    assert.equal(ownSelf.response.status, 403);
    const adminGone = await owner.client.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
      ...path(admin.id),
    });
    assert.equal(adminGone.response.status, 200);
  });

  it("names the staff member who acted in the order's history", async () => {
    const owner = await merchantWithStore(ctx.app);
    const fulfiller = await member(owner, "orders", "Olu Orders");
    const path = { params: { path: { slug: owner.slug } } };
    const product = (
      await owner.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        ...path,
        body: flat({ title: "Mug", price: "7.25", stock: 3 }),
      })
    ).data!.data;
    const customer = await fulfiller.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      ...path,
      body: { email: "c@example.com", firstName: "C" },
    });
    assert.equal(customer.response.status, 201, text(customer));
    const order = await fulfiller.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      ...path,
      body: { customerId: customer.data!.data.id, lineItems: [{ productId: product.id, quantity: 1 }] },
    });
    assert.equal(order.response.status, 201, text(order));
    const id = order.data!.data.id;
    const paid = await owner.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: owner.slug, id } },
      body: { status: "paid" },
    });
    assert.equal(paid.response.status, 200, text(paid));
    const history = await owner.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
      params: { path: { slug: owner.slug, id } },
    });
    assert.deepEqual(
      history.data!.data.map((h) => [h.status, h.actor.kind, h.actor.name]),
      [
        ["pending", "account", "Olu Orders"],
        ["paid", "account", "Test Merchant"],
      ],
    );
  });
});
