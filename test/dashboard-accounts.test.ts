import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestContext, type TestContext, uniqueEmail } from "./harness.ts";
import { Client, errorCode, merchantWithStore } from "./legacy-client.ts";

describe("dashboard: accounts and sessions", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ LOGIN_MAX_FAILURES: "3" });
  });
  after(() => ctx.close());

  it("signs up, keeps the session in an HttpOnly SameSite=Lax cookie, and answers /me", async () => {
    const client = new Client(ctx.app);
    const email = uniqueEmail();
    const res = await client.post("/api/v1/dashboard/auth/signup", {
      email,
      password: "long enough pw",
      name: "Ann",
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.match(res.data.id, /^acct_[0-9A-Za-z]{22}$/);
    assert.equal(res.data.password_hash, undefined);
    const cookie = res.raw.cookies.find((c) => c.name === "mp_session");
    assert.ok(cookie?.httpOnly);
    assert.equal(cookie?.sameSite, "Lax");
    assert.match(cookie!.value, /^mps_[0-9A-Za-z]{43}$/);
    const me = await client.get("/api/v1/dashboard/me");
    assert.equal(me.status, 200);
    assert.equal(me.data.email, email);
  });

  it("refuses a second account with the same e-mail in any letter case", async () => {
    const email = uniqueEmail();
    await new Client(ctx.app).post("/api/v1/dashboard/auth/signup", {
      email,
      password: "long enough pw",
      name: "A",
    });
    const res = await new Client(ctx.app).post("/api/v1/dashboard/auth/signup", {
      email: email.toUpperCase(),
      password: "long enough pw",
      name: "B",
    });
    assert.equal(res.status, 409);
    assert.equal(errorCode(res), "CONFLICT");
  });

  it("logs in, logs out, and the old cookie is dead afterwards", async () => {
    const { email, password } = await merchantWithStore(ctx.app);
    const client = new Client(ctx.app);
    const login = await client.post("/api/v1/dashboard/auth/login", { email, password });
    assert.equal(login.status, 200);
    const oldCookie = client.cookie!;
    assert.equal((await client.post("/api/v1/dashboard/auth/logout")).status, 200);
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
    const wrong = await new Client(ctx.app).post("/api/v1/dashboard/auth/login", {
      email,
      password: "wrong password",
    });
    const unknown = await new Client(ctx.app).post("/api/v1/dashboard/auth/login", {
      email: uniqueEmail("nobody"),
      password: "wrong password",
    });
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.answer, unknown.answer);
    await new Client(ctx.app).post("/api/v1/dashboard/auth/login", { email, password: "wrong again" });
    await new Client(ctx.app).post("/api/v1/dashboard/auth/login", { email, password: "wrong thrice" });
    // The 4th attempt is refused even with the right password: the throttle is checked first.
    const blocked = await new Client(ctx.app).post("/api/v1/dashboard/auth/login", {
      email,
      password: "correct horse battery",
    });
    assert.equal(blocked.status, 429);
    assert.equal(errorCode(blocked), "RATE_LIMITED");
    assert.ok(Number(blocked.headers["retry-after"]) > 0);
  });

  it("expires sessions after SESSION_TTL_SECONDS", async () => {
    const { client } = await merchantWithStore(ctx.app);
    assert.equal((await client.get("/api/v1/dashboard/me")).status, 200);
    ctx.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    assert.equal((await client.get("/api/v1/dashboard/me")).status, 401);
  });

  it("requires application/json on state-changing requests (CSRF guard)", async () => {
    const { client, base } = await merchantWithStore(ctx.app);
    const form = await client.request("POST", `${base}/products`, "title=x&price=1", {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 415);
    assert.equal(errorCode(form), "UNSUPPORTED_MEDIA_TYPE");
    const plain = await client.request("POST", "/api/v1/dashboard/auth/logout", "", {
      "content-type": "text/plain",
    });
    assert.equal(plain.status, 415);
  });

  it("rejects malformed JSON, unknown fields, wrong types and oversize values with 4xx envelopes", async () => {
    const client = new Client(ctx.app);
    const malformed = await client.request("POST", "/api/v1/dashboard/auth/signup", '{"email": ');
    assert.equal(malformed.status, 400);
    assert.equal(errorCode(malformed), "BAD_REQUEST");
    const unknown = await client.post("/api/v1/dashboard/auth/signup", {
      email: uniqueEmail(),
      password: "long enough pw",
      name: "A",
      isAdmin: true,
    });
    assert.equal(unknown.status, 400);
    assert.equal(errorCode(unknown), "VALIDATION_FAILED");
    assert.deepEqual(unknown.body.error.details, [{ field: "isAdmin", message: "is not a known field" }]);
    const wrongType = await client.post("/api/v1/dashboard/auth/signup", {
      email: uniqueEmail(),
      password: 1234567890123,
      name: "A",
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.error.details[0].field, "password");
    const long = await client.post("/api/v1/dashboard/auth/signup", {
      email: uniqueEmail(),
      password: "x".repeat(201),
      name: "A",
    });
    assert.equal(long.status, 400);
    const huge = await client.request(
      "POST",
      "/api/v1/dashboard/auth/signup",
      JSON.stringify({ name: "x".repeat(2_000_000) }),
    );
    assert.equal(huge.status, 413);
    assert.equal(errorCode(huge), "PAYLOAD_TOO_LARGE");
  });

  it("answers unknown routes with a NOT_FOUND envelope and echoes a request id", async () => {
    const res = await new Client(ctx.app).get("/api/v1/nope", { "x-request-id": "req-123" });
    assert.equal(res.status, 404);
    assert.equal(errorCode(res), "NOT_FOUND");
    assert.equal(res.headers["x-request-id"], "req-123");
  });
});
