import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  apiClient,
  createTestContext,
  errorCode,
  merchantWithStore,
  offDocumentRequest,
  setCookies,
  type TestContext,
  text,
  uniqueEmail,
} from "./harness.ts";
import { type ReceivedMail, startSmtpServer } from "./smtp-server.ts";

const NEW_PASSWORD = "a brand new passphrase";

/**
 * "Forgot password" and the confirmation of a new sign-in address, through the HTTP API, with
 * every e-mail going through a real SMTP server started here and read as the recipient would.
 */
describe("account e-mails: password reset and address change", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let ctx: TestContext;
  before(async () => {
    smtp = await startSmtpServer();
    ctx = await createTestContext({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: "https://shop.example" });
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  /** Lets the answered requests finish, sends what they wrote, and answers the mail to `to`. */
  async function mailTo(to: string): Promise<ReceivedMail[]> {
    await ctx.platform.accountLinks.idle();
    await ctx.platform.mail.worker.drain();
    return smtp.received.filter((m) => m.to[0]?.toLowerCase() === to.toLowerCase());
  }
  const linkIn = (mail: ReceivedMail | undefined, path: string) => {
    const match = new RegExp(`https://shop\\.example${path}#token=([A-Za-z0-9_.]+)`).exec(
      mail?.parsed.text ?? "",
    );
    assert.ok(match, `a ${path} link in the message`);
    return match[1]!;
  };

  it("forgot password: the same answer for any address; a link, single use, that ends every session", async () => {
    const m = await merchantWithStore(ctx.app);
    const anon = apiClient(ctx.app, { remoteAddress: "10.1.0.1" });
    const known = await anon.POST("/api/v1/dashboard/auth/password-reset", {
      body: { email: m.email.toUpperCase() },
    });
    const unknownAddress = uniqueEmail("nobody");
    const unknown = await anon.POST("/api/v1/dashboard/auth/password-reset", {
      body: { email: unknownAddress },
    });
    assert.equal(known.response.status, 202, text(known));
    assert.equal(unknown.response.status, 202);
    assert.equal(text(known), text(unknown), "the answer does not tell whether the address has an account");
    assert.equal((await mailTo(unknownAddress)).length, 0);
    const [mail] = await mailTo(m.email);
    assert.ok(mail);
    assert.equal(mail.parsed.subject, "Reset your Merchant Platform password");
    assert.match(String(mail.parsed.html), /Choose a new password/);
    assert.match(mail.parsed.text ?? "", /works once, for 30 minutes/);
    const token = linkIn(mail, "/reset-password");

    // Only the hash of the secret is stored.
    const stored = await ctx.platform.db.selectFrom("password_resets").selectAll().execute();
    const secret = token.split(".")[1]!;
    assert.ok(stored.every((r) => r.secret_hash !== secret && !r.secret_hash.includes(secret)));

    // A second browser of the merchant is signed in; the reset signs it out.
    const other = apiClient(ctx.app);
    assert.equal(
      (await other.POST("/api/v1/dashboard/auth/login", { body: { email: m.email, password: m.password } }))
        .response.status,
      200,
    );
    // A wrong secret for the right link is refused like an unknown one.
    const forged = `${token.split(".")[0]}.${"A".repeat(43)}`;
    const wrong = await anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token: forged, newPassword: NEW_PASSWORD },
    });
    assert.equal(wrong.response.status, 400);
    assert.equal(errorCode(wrong), "INVALID_GRANT");
    // Two uses at once: one wins.
    const use = () =>
      anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
        body: { token, newPassword: NEW_PASSWORD },
      });
    const [a, b] = await Promise.all([use(), use()]);
    assert.deepEqual([a.response.status, b.response.status].sort(), [200, 400]);
    const won = a.response.status === 200 ? a : b;
    assert.equal(won.data?.data.signedOutSessions, 2);
    assert.ok(setCookies(won).some((c) => c.name === "mp_session" && c.value === ""));
    assert.equal((await other.GET("/api/v1/dashboard/me")).response.status, 401);
    assert.equal((await m.client.GET("/api/v1/dashboard/me")).response.status, 401);
    const login = (password: string) =>
      apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", { body: { email: m.email, password } });
    assert.equal((await login(m.password)).response.status, 401);
    assert.equal((await login(NEW_PASSWORD)).response.status, 200);
    // Used: the link does not work again.
    const again = await anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token, newPassword: "yet another passphrase" },
    });
    assert.equal(errorCode(again), "INVALID_GRANT");
    const notices = (await mailTo(m.email)).filter((x) => x.parsed.subject?.includes("was changed"));
    assert.equal(notices.length, 1);
  });

  it("a reset link expires after 30 minutes, and a newer reset ends older links", async () => {
    const m = await merchantWithStore(ctx.app);
    const anon = apiClient(ctx.app, { remoteAddress: "10.1.0.2" });
    await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: m.email } });
    await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: m.email } });
    const [first, second] = await mailTo(m.email);
    const late = linkIn(first, "/reset-password");
    const fresh = linkIn(second, "/reset-password");
    const used = await anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token: fresh, newPassword: NEW_PASSWORD },
    });
    assert.equal(used.response.status, 200, text(used));
    const ended = await anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token: late, newPassword: "another passphrase here" },
    });
    assert.equal(errorCode(ended), "INVALID_GRANT");

    const n = await merchantWithStore(ctx.app);
    await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: n.email } });
    const token = linkIn((await mailTo(n.email))[0], "/reset-password");
    ctx.clock.advance(30 * 60_000 + 1000);
    const expired = await anon.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token, newPassword: NEW_PASSWORD },
    });
    assert.equal(errorCode(expired), "INVALID_GRANT");
  });

  it("throttles: 3 e-mails per address an hour (the answer unchanged), 20 requests per IP, wrong tokens per IP", async () => {
    const m = await merchantWithStore(ctx.app);
    const anon = apiClient(ctx.app, { remoteAddress: "10.1.0.3" });
    for (let i = 0; i < 5; i++) {
      const answer = await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: m.email } });
      assert.equal(answer.response.status, 202);
    }
    assert.equal((await mailTo(m.email)).length, 3);
    // 20 per IP an hour: this address has 15 left.
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++)
      statuses.push(
        (await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: uniqueEmail("x") } }))
          .response.status,
      );
    assert.equal(statuses.filter((s) => s === 202).length, 15);
    const refused = await anon.POST("/api/v1/dashboard/auth/password-reset", { body: { email: m.email } });
    assert.equal(refused.response.status, 429);
    assert.ok(Number(refused.response.headers.get("retry-after")) > 0);
    // Another address is not held up.
    const elsewhere = apiClient(ctx.app, { remoteAddress: "10.1.0.4" });
    assert.equal(
      (await elsewhere.POST("/api/v1/dashboard/auth/password-reset", { body: { email: uniqueEmail("y") } }))
        .response.status,
      202,
    );

    // Guessing link secrets from one IP is stopped; the rightful link still works from there.
    const guesser = apiClient(ctx.app, { remoteAddress: "10.1.0.5" });
    await guesser.POST("/api/v1/dashboard/auth/password-reset", { body: { email: m.email } });
    ctx.clock.advance(3_600_000 + 1000);
    const k = await merchantWithStore(ctx.app);
    await guesser.POST("/api/v1/dashboard/auth/password-reset", { body: { email: k.email } });
    const rightful = linkIn((await mailTo(k.email))[0], "/reset-password");
    let last = 0;
    for (let i = 0; i < 120 && last !== 429; i++) {
      const guess = `pwr_${"G".repeat(22)}.${String(i).padStart(43, "0")}`;
      last = (
        await guesser.POST("/api/v1/dashboard/auth/password-reset/confirm", {
          body: { token: guess, newPassword: NEW_PASSWORD },
        })
      ).response.status;
    }
    assert.equal(last, 429, "guessing is throttled");
    const ok = await guesser.POST("/api/v1/dashboard/auth/password-reset/confirm", {
      body: { token: rightful, newPassword: NEW_PASSWORD },
    });
    assert.equal(ok.response.status, 200, "the right link is never refused");
  });

  it("a new address changes only when the link sent to it is opened; the old address is told", async () => {
    const m = await merchantWithStore(ctx.app);
    const newEmail = uniqueEmail("moved");
    const asked = await m.client.PATCH("/api/v1/dashboard/account", {
      body: { email: newEmail, currentPassword: m.password },
    });
    assert.equal(asked.response.status, 200, text(asked));
    assert.equal(asked.data!.data.email, m.email, "not changed yet");
    assert.equal(asked.data!.data.pendingEmail?.email, newEmail);
    assert.equal((await m.client.GET("/api/v1/dashboard/me")).data!.data.pendingEmail?.email, newEmail);
    const login = (email: string) =>
      apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", { body: { email, password: m.password } });
    assert.equal((await login(m.email)).response.status, 200);
    assert.equal((await login(newEmail)).response.status, 401);

    const [notice] = await mailTo(m.email);
    assert.match(notice?.parsed.text ?? "", new RegExp(`change its sign-in address to ${newEmail}`));
    const [confirm] = await mailTo(newEmail);
    const token = linkIn(confirm, "/confirm-email");
    // The link works without a session (another device).
    const confirmed = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/email-change/confirm", {
      body: { token },
    });
    assert.equal(confirmed.response.status, 200, text(confirmed));
    assert.equal(confirmed.data!.data.email, newEmail);
    assert.equal((await login(newEmail)).response.status, 200);
    assert.equal((await login(m.email)).response.status, 401);
    assert.equal((await m.client.GET("/api/v1/dashboard/me")).data!.data.pendingEmail, null);
    const changed = (await mailTo(m.email)).filter((x) => x.parsed.subject?.includes("was changed"));
    assert.equal(changed.length, 1);
    const reused = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/email-change/confirm", {
      body: { token },
    });
    assert.equal(errorCode(reused), "INVALID_GRANT");
  });

  it("an address taken meanwhile is a 409 at confirmation; malformed tokens are 400 before any lookup", async () => {
    const m = await merchantWithStore(ctx.app);
    const wanted = uniqueEmail("wanted");
    await m.client.PATCH("/api/v1/dashboard/account", {
      body: { email: wanted, currentPassword: m.password },
    });
    const token = linkIn((await mailTo(wanted))[0], "/confirm-email");
    const taker = apiClient(ctx.app);
    await taker.POST("/api/v1/dashboard/auth/signup", {
      body: { email: wanted, password: "correct horse battery", name: "Taker" },
    });
    const clash = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/email-change/confirm", {
      body: { token },
    });
    assert.equal(clash.response.status, 409);
    for (const body of ['{"token":"nope"}', `{"token":"${"x".repeat(5000)}"}`, "{}"]) {
      const r = await offDocumentRequest(
        apiClient(ctx.app),
        "POST",
        "/api/v1/dashboard/auth/email-change/confirm",
        {
          headers: { "content-type": "application/json" },
          body,
        },
      );
      assert.equal(r.response.status, 400, body.slice(0, 30));
    }
  });
});
