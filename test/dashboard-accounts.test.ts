import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  answer,
  apiClient,
  createTestContext,
  errorCode,
  fieldErrors,
  type Json,
  merchantWithStore,
  offDocument,
  offDocumentRequest,
  rawBody,
  setCookies,
  type TestContext,
  uniqueEmail,
} from "./harness.ts";

describe("dashboard: accounts and sessions", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ LOGIN_MAX_FAILURES: "3" });
  });
  after(() => ctx.close());

  it("signs up, keeps the session in an HttpOnly SameSite=Lax cookie, and answers /me", async () => {
    const client = apiClient(ctx.app);
    const email = uniqueEmail();
    const res = await client.POST("/api/v1/dashboard/auth/signup", {
      body: {
        email,
        password: "long enough pw",
        name: "Ann",
      },
    });
    assert.equal(res.response.status, 201);
    assert.equal((res.data ?? res.error)!.success, true);
    assert.match(res.data!.data.id, /^acct_[0-9A-Za-z]{22}$/);
    // A field the document does not have, read on purpose: it must not be there.
    assert.equal((res.data!.data as Json).password_hash, undefined);
    const cookie = setCookies(res).find((c) => c.name === "mp_session");
    assert.ok(cookie?.httpOnly);
    assert.equal(cookie?.sameSite, "Lax");
    assert.match(cookie!.value, /^mps_[0-9A-Za-z]{43}$/);
    const me = await client.GET("/api/v1/dashboard/me");
    assert.equal(me.response.status, 200);
    assert.equal(me.data!.data.email, email);
  });

  it("refuses a second account with the same e-mail in any letter case", async () => {
    const email = uniqueEmail();
    await apiClient(ctx.app).POST("/api/v1/dashboard/auth/signup", {
      body: {
        email,
        password: "long enough pw",
        name: "A",
      },
    });
    const res = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/signup", {
      body: {
        email: email.toUpperCase(),
        password: "long enough pw",
        name: "B",
      },
    });
    assert.equal(res.response.status, 409);
    assert.equal(errorCode(res), "CONFLICT");
  });

  it("logs in, logs out, and the old cookie is dead afterwards", async () => {
    const { email, password } = await merchantWithStore(ctx.app);
    const client = apiClient(ctx.app);
    const login = await client.POST("/api/v1/dashboard/auth/login", { body: { email, password } });
    assert.equal(login.response.status, 200);
    const oldCookie = client.jar.cookie!;
    assert.equal((await client.POST("/api/v1/dashboard/auth/logout")).response.status, 200);
    const stale = await ctx.app.inject({
      method: "GET",
      url: "/api/v1/dashboard/me",
      headers: { cookie: oldCookie },
    });
    assert.equal(stale.statusCode, 401);
    assert.equal(stale.json().error.code, "UNAUTHENTICATED");
  });

  it("answers wrong password and unknown e-mail identically, then throttles", async () => {
    const { email } = await merchantWithStore(ctx.app);
    const wrong = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", {
      body: {
        email,
        password: "wrong password",
      },
    });
    const unknown = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", {
      body: {
        email: uniqueEmail("nobody"),
        password: "wrong password",
      },
    });
    assert.equal(wrong.response.status, 401);
    assert.deepEqual(answer(wrong), answer(unknown));
    await apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", {
      body: { email, password: "wrong again" },
    });
    await apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", {
      body: { email, password: "wrong thrice" },
    });
    // The 4th attempt is refused even with the right password: the throttle is checked first.
    const blocked = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", {
      body: {
        email,
        password: "correct horse battery",
      },
    });
    assert.equal(blocked.response.status, 429);
    assert.equal(errorCode(blocked), "RATE_LIMITED");
    assert.ok(Number(blocked.response.headers.get("retry-after")) > 0);
  });

  it("expires sessions after SESSION_TTL_SECONDS", async () => {
    const { client } = await merchantWithStore(ctx.app);
    assert.equal((await client.GET("/api/v1/dashboard/me")).response.status, 200);
    ctx.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    assert.equal((await client.GET("/api/v1/dashboard/me")).response.status, 401);
  });

  it("requires application/json on state-changing requests (CSRF guard)", async () => {
    const { client, slug } = await merchantWithStore(ctx.app);
    const form = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug } },
      ...rawBody("title=x&price=1"),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(form.response.status, 415);
    assert.equal(errorCode(form), "UNSUPPORTED_MEDIA_TYPE");
    const plain = await client.POST("/api/v1/dashboard/auth/logout", {
      ...rawBody(""),
      headers: {
        "content-type": "text/plain",
      },
    });
    assert.equal(plain.response.status, 415);
  });

  it("rejects malformed JSON, unknown fields, wrong types and oversize values with 4xx envelopes", async () => {
    const client = apiClient(ctx.app);
    const malformed = await client.POST("/api/v1/dashboard/auth/signup", { ...rawBody('{"email": ') });
    assert.equal(malformed.response.status, 400);
    assert.equal(errorCode(malformed), "BAD_REQUEST");
    const unknown = await client.POST("/api/v1/dashboard/auth/signup", {
      // A field the document does not have.
      body: offDocument({
        email: uniqueEmail(),
        password: "long enough pw",
        name: "A",
        isAdmin: true,
      }),
    });
    assert.equal(unknown.response.status, 400);
    assert.equal(errorCode(unknown), "VALIDATION_FAILED");
    assert.deepEqual(fieldErrors(unknown), [{ field: "isAdmin", message: "is not a known field" }]);
    const wrongType = await client.POST("/api/v1/dashboard/auth/signup", {
      // Not a string.
      body: offDocument({
        email: uniqueEmail(),
        password: 1234567890123,
        name: "A",
      }),
    });
    assert.equal(wrongType.response.status, 400);
    assert.equal(fieldErrors(wrongType)[0]!.field, "password");
    const long = await client.POST("/api/v1/dashboard/auth/signup", {
      body: {
        email: uniqueEmail(),
        password: "x".repeat(201),
        name: "A",
      },
    });
    assert.equal(long.response.status, 400);
    const huge = await client.POST("/api/v1/dashboard/auth/signup", {
      ...rawBody(JSON.stringify({ name: "x".repeat(2_000_000) })),
    });
    assert.equal(huge.response.status, 413);
    assert.equal(errorCode(huge), "PAYLOAD_TOO_LARGE");
  });

  it("answers unknown routes with a NOT_FOUND envelope and echoes a request id", async () => {
    const res = await offDocumentRequest(apiClient(ctx.app), "GET", "/api/v1/nope", {
      headers: { "x-request-id": "req-123" },
    });
    assert.equal(res.response.status, 404);
    assert.equal(errorCode(res), "NOT_FOUND");
    assert.equal(res.response.headers.get("x-request-id"), "req-123");
  });
});
