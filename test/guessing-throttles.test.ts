import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { buildApp } from "../src/app.ts";
import type { App } from "../src/lib/http/types.ts";
import { argon2idPasswords } from "../src/modules/accounts/password.ts";
import { createPlatform } from "../src/platform.ts";
import { REDIRECT, registerApp } from "./apps-harness.ts";
import {
  type Answer,
  answer,
  apiClient,
  asForm,
  createTestContext,
  errorCode,
  merchantWithStore,
  type RequestBody,
  setCookies,
  type TestContext,
  text,
  uniqueEmail,
} from "./harness.ts";

const MAX_LOGIN_FAILURES = 3;
const PASSWORD = "correct horse battery";
const DAY_MS = 24 * 3600 * 1000;

/** A browser: keeps every cookie the server sets (the session and the device cookie). */
class Browser {
  readonly jar = new Map<string, string>();
  readonly app: App;
  readonly ip: string;
  constructor(app: App, ip = "127.0.0.1") {
    this.app = app;
    this.ip = ip;
  }
  /** The typed client as this browser: its address, and every cookie it keeps (the device cookie too). */
  private send<A extends Answer>(
    call: (client: ReturnType<typeof apiClient>, headers: Record<string, string>) => Promise<A>,
  ) {
    const cookie: Record<string, string> = this.jar.size
      ? { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ") }
      : {};
    return call(apiClient(this.app, { remoteAddress: this.ip }), cookie).then((res) => {
      for (const c of setCookies(res)) {
        if (c.value) this.jar.set(c.name, c.value);
        else this.jar.delete(c.name); // cleared by the server
      }
      return res;
    });
  }
  signup(body: RequestBody<"/api/v1/dashboard/auth/signup", "post">) {
    return this.send((client, headers) => client.POST("/api/v1/dashboard/auth/signup", { body, headers }));
  }
  changePassword(body: RequestBody<"/api/v1/dashboard/account/password", "post">) {
    return this.send((client, headers) =>
      client.POST("/api/v1/dashboard/account/password", { body, headers }),
    );
  }
  logoutEverywhere() {
    return this.send((client, headers) =>
      client.POST("/api/v1/dashboard/auth/logout-everywhere", { headers }),
    );
  }
  login(email: string, password = PASSWORD) {
    return this.send((client, headers) =>
      client.POST("/api/v1/dashboard/auth/login", { body: { email, password }, headers }),
    );
  }
  get device() {
    return this.jar.get("mp_device");
  }
}

async function signup(app: App, browser = new Browser(app)) {
  const email = uniqueEmail("guessed");
  const res = await browser.signup({ email, password: PASSWORD, name: "M" });
  assert.equal(res.response.status, 201);
  return { email, browser };
}

/** Someone without the merchant's browser fails until the e-mail is locked for untrusted clients. */
async function lockOut(app: App, email: string, ip = "198.51.100.7") {
  for (let i = 0; i < MAX_LOGIN_FAILURES; i++) {
    assert.equal((await new Browser(app, ip).login(email, "wrong password")).response.status, 401);
  }
  const locked = await new Browser(app, ip).login(email);
  assert.equal(
    locked.response.status,
    429,
    "the right password from an unknown browser waits out the lockout",
  );
}

describe("failed guesses never lock out the rightful user: dashboard sign-in", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({
      LOGIN_MAX_FAILURES: String(MAX_LOGIN_FAILURES),
      LOGIN_FAILURE_WINDOW_SECONDS: "900",
    });
  });
  after(() => ctx.close());

  it("sets a long-lived HttpOnly SameSite=Lax device cookie on sign-up and on every sign-in", async () => {
    const { email, browser } = await signup(ctx.app);
    const fromSignup = browser.device;
    assert.ok(fromSignup);
    const res = await browser.login(email);
    assert.equal(res.response.status, 200);
    const cookie = setCookies(res).find((c) => c.name === "mp_device");
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Lax");
    assert.equal(cookie.path, "/api/v1/dashboard/auth");
    assert.notEqual(cookie.secure, true, "plain http here; Secure when PUBLIC_BASE_URL is https");
    const lifetime = new Date(String(cookie.expires)).getTime() - ctx.clock.now().getTime();
    assert.ok(lifetime > 300 * DAY_MS, `long-lived: ${lifetime} ms`);
    assert.notEqual(cookie.value, fromSignup, "a new device cookie (a new failure bucket) each time");
    assert.doesNotMatch(cookie.value, /@/, "it names the account, not its e-mail address");
  });

  it("lets a browser that signed in before sign in while the e-mail is locked for everyone else", async () => {
    const { email, browser } = await signup(ctx.app);
    await lockOut(ctx.app, email);
    const mine = await browser.login(email);
    assert.equal(mine.response.status, 200, text(mine));
    assert.equal(mine.data!.data.email, email);
    // Its own mistakes answer 401 (counted in its own bucket), not the untrusted lockout's 429.
    assert.equal((await browser.login(email, "typo password")).response.status, 401);
    assert.equal((await browser.login(email)).response.status, 200);
    // Guessing is still bounded for everyone else.
    assert.equal((await new Browser(ctx.app).login(email)).response.status, 429);
  });

  it("locks out a device cookie that fails too often, without locking out the e-mail", async () => {
    const { email, browser } = await signup(ctx.app);
    const stolen = browser.device!;
    const thief = new Browser(ctx.app, "203.0.113.50");
    thief.jar.set("mp_device", stolen);
    for (let i = 0; i < MAX_LOGIN_FAILURES; i++) {
      assert.equal((await thief.login(email, "wrong password")).response.status, 401);
    }
    const locked = await thief.login(email);
    assert.equal(locked.response.status, 429, "even the right password waits on a locked device cookie");
    assert.equal(errorCode(locked), "RATE_LIMITED");
    assert.ok(Number(locked.response.headers.get("retry-after")) > 0);
    // The device's failures are its own: other browsers, new or trusted, are unaffected.
    assert.equal((await new Browser(ctx.app).login(email)).response.status, 200);
    ctx.clock.advance(900_000);
    assert.equal((await thief.login(email)).response.status, 200, "after the window");
  });

  it("treats a forged, altered, expired or another account's device cookie as no cookie", async () => {
    const victim = await signup(ctx.app);
    const other = await signup(ctx.app);
    const genuine = victim.browser.device!;
    const [accountId, nonce, expires, mac] = genuine.split(".") as [string, string, string, string];
    const flipped = `${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`;
    const later = String(Number(expires) + 10 * 365 * 24 * 3600);
    const candidates = {
      "altered signature": `${accountId}.${nonce}.${expires}.${flipped}`,
      "extended expiry": `${accountId}.${nonce}.${later}.${mac}`,
      "another account's cookie": other.browser.device!,
      "another account's id": `${other.browser.device!.split(".")[0]}.${nonce}.${expires}.${mac}`,
      garbage: "x".repeat(150),
    };
    await lockOut(ctx.app, victim.email);
    for (const [name, value] of Object.entries(candidates)) {
      const browser = new Browser(ctx.app);
      browser.jar.set("mp_device", value);
      assert.equal((await browser.login(victim.email)).response.status, 429, name);
    }
    assert.equal((await victim.browser.login(victim.email)).response.status, 200, "the genuine one works");

    // Expiry: a cookie older than its lifetime is no longer trusted.
    const old = await signup(ctx.app);
    ctx.clock.advance(366 * DAY_MS);
    await lockOut(ctx.app, old.email);
    assert.equal((await old.browser.login(old.email)).response.status, 429, "expired device cookie");
  });

  it("does not refuse a trusted browser because its address failed too often", async () => {
    const { email, browser } = await signup(ctx.app);
    const office = "192.0.2.44";
    browser.jar.delete("mp_session");
    const inOffice = new Browser(ctx.app, office);
    inOffice.jar.set("mp_device", browser.device!);
    // 5x the per-e-mail budget from one address, spread over e-mails so none is locked by itself.
    for (let i = 0; i < MAX_LOGIN_FAILURES * 5; i++) {
      const res = await new Browser(ctx.app, office).login(uniqueEmail("spray"), "wrong password");
      assert.equal(res.response.status, 401, `attempt ${i}`);
    }
    // Passwords are guessable, so an unknown browser at that address waits (docs/decisions.md)...
    assert.equal((await new Browser(ctx.app, office).login(email)).response.status, 429);
    // ...but the merchant's own browser there does not.
    assert.equal((await inOffice.login(email)).response.status, 200);
  });
});

describe("device cookies are signed with a key derived from SECRETS_KEY", () => {
  const secretsKey = randomBytes(32).toString("base64");
  let ctx: TestContext;
  const instances: App[] = [];
  /** Another instance (or the same one restarted) on the same database, with its own process state. */
  async function instance(key: string) {
    const config = { ...ctx.platform.config, SECRETS_KEY: key };
    const app = await buildApp(createPlatform({ config, database: ctx.platform.database, clock: ctx.clock }));
    await app.ready();
    instances.push(app);
    return app;
  }
  before(async () => {
    ctx = await createTestContext({
      SECRETS_KEY: secretsKey,
      LOGIN_MAX_FAILURES: String(MAX_LOGIN_FAILURES),
    });
  });
  after(async () => {
    for (const app of instances) await app.close();
    await ctx.close();
  });

  it("is accepted by every instance with the same key, and by none with another", async () => {
    const { email, browser } = await signup(ctx.app);
    const sameKey = await instance(secretsKey);
    const otherKey = await instance(randomBytes(32).toString("base64"));
    for (const [app, expected] of [
      [sameKey, 200],
      [otherKey, 429],
    ] as const) {
      await lockOut(app, email);
      const there = new Browser(app);
      there.jar.set("mp_device", browser.device!);
      assert.equal((await there.login(email)).response.status, expected);
    }
  });
});

describe("failed guesses never lock out the rightful user: app credentials", () => {
  const MAX = 2;
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ CREDENTIAL_MAX_FAILURES: String(MAX) }, { frozenClock: true });
  });
  after(() => ctx.close());

  /** POST /api/v1/oauth/revoke: 200 exactly when the client authenticates (unknown tokens are fine). */
  async function revoke(ip: string, clientId: string, clientSecret: string) {
    return apiClient(ctx.app, { remoteAddress: ip }).POST("/api/v1/oauth/revoke", {
      body: { token: "mprt_unknown", client_id: clientId, client_secret: clientSecret },
      ...asForm,
    });
  }

  it("accepts correct client credentials from an address that failed too often, and only those", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const shared = "203.0.113.77";
    // The per-IP budget (5x the per-id one), spread over client ids so no id is throttled.
    for (let i = 0; i < MAX * 5; i++) {
      const res = await revoke(shared, `mpc_${String(i).padStart(24, "z")}`, "mpcs_wrong");
      assert.equal(res.response.status, 401, `attempt ${i}`);
    }
    const right = await revoke(shared, a.clientId, a.clientSecret);
    assert.equal(right.response.status, 200, text(right));
    // The envelope endpoints authenticate the same way: a wrong code, not a throttle.
    const exchange = await apiClient(ctx.app, { remoteAddress: shared }).POST("/api/v1/apps/token", {
      body: {
        slug: "any-store",
        code: "mpac_unknown",
        redirectUri: REDIRECT,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
      },
    });
    assert.equal(exchange.response.status, 400);
    assert.equal(errorCode(exchange), "INVALID_GRANT");
    // Wrong credentials from that address stay refused, one answer for known and unknown clients.
    const wrongKnown = await revoke(shared, a.clientId, "mpcs_wrong");
    const wrongUnknown = await revoke(shared, `mpc_${"y".repeat(24)}`, "mpcs_wrong");
    assert.equal(wrongKnown.response.status, 429);
    assert.deepEqual(answer(wrongKnown), answer(wrongUnknown));
    assert.equal(
      wrongKnown.response.headers.get("retry-after"),
      wrongUnknown.response.headers.get("retry-after"),
    );
    assert.equal((await revoke("198.51.100.1", `mpc_${"x".repeat(24)}`, "mpcs_wrong")).response.status, 401);
    // The per-id semantics are unchanged: the known client now has one failure of its two.
    assert.equal((await revoke("198.51.100.2", a.clientId, "mpcs_wrong")).response.status, 401);
    assert.equal((await revoke("198.51.100.3", a.clientId, a.clientSecret)).response.status, 429);
  });
});

describe("device cookies stop being trusted when the password changes and on sign-out everywhere", () => {
  const NEW_PASSWORD = "a brand new password";
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(
      { LOGIN_MAX_FAILURES: String(MAX_LOGIN_FAILURES), LOGIN_FAILURE_WINDOW_SECONDS: "900" },
      { frozenClock: true },
    );
  });
  after(() => ctx.close());

  /** Fails from a new browser at a new address until the e-mail is locked for untrusted clients. */
  async function lock(email: string) {
    const ip = freshIp();
    for (let i = 0; i < MAX_LOGIN_FAILURES; i++) {
      assert.equal((await new Browser(ctx.app, ip).login(email, "wrong password")).response.status, 401);
    }
  }

  it("a password change untrusts every device cookie; the browser that changed it gets a fresh one", async () => {
    const { email, browser: laptop } = await signup(ctx.app);
    const phone = new Browser(ctx.app);
    assert.equal((await phone.login(email)).response.status, 200);
    const stolen = laptop.device!;

    const changed = await laptop.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    assert.equal(changed.response.status, 200, text(changed));
    assert.deepEqual(changed.data!.data, { signedOutSessions: 1 });
    const fresh = setCookies(changed).find((c) => c.name === "mp_device");
    assert.ok(fresh, "the browser that proved the password is trusted anew");
    assert.equal(fresh.path, "/api/v1/dashboard/auth");
    assert.equal(fresh.httpOnly, true);
    assert.equal(fresh.sameSite, "Lax");
    assert.notEqual(fresh.value, stolen);

    // The stolen cookie no longer has a budget of its own: its guesses count against the e-mail.
    const thief = new Browser(ctx.app, freshIp());
    thief.jar.set("mp_device", stolen);
    for (let i = 0; i < MAX_LOGIN_FAILURES; i++) {
      assert.equal((await thief.login(email, "guess")).response.status, 401);
    }
    assert.equal(
      (await thief.login(email, NEW_PASSWORD)).response.status,
      429,
      "locked like any new browser",
    );
    assert.equal(
      (await new Browser(ctx.app).login(email, NEW_PASSWORD)).response.status,
      429,
      "the e-mail is locked",
    );
    // The phone signed in before the change: a new browser now, held up by the lockout.
    assert.equal((await phone.login(email, NEW_PASSWORD)).response.status, 429);
    // The browser that changed the password signs in through the lockout with its new cookie.
    const mine = await laptop.login(email, NEW_PASSWORD);
    assert.equal(mine.response.status, 200, text(mine));
  });

  it("a wrong current password changes nothing: the device cookies stay trusted", async () => {
    const { email, browser } = await signup(ctx.app);
    const device = browser.device!;
    const wrong = await browser.changePassword({
      currentPassword: "not it at all",
      newPassword: NEW_PASSWORD,
    });
    assert.equal(wrong.response.status, 400);
    assert.equal(
      setCookies(wrong).find((c) => c.name === "mp_device"),
      undefined,
    );
    await lock(email);
    const other = new Browser(ctx.app);
    other.jar.set("mp_device", device);
    assert.equal((await other.login(email)).response.status, 200);
  });

  it("sign-out everywhere untrusts every device cookie, this browser's too, and clears it here", async () => {
    const { email, browser: laptop } = await signup(ctx.app);
    const phone = new Browser(ctx.app);
    assert.equal((await phone.login(email)).response.status, 200);
    const laptopCookie = laptop.device!;

    const res = await laptop.logoutEverywhere();
    assert.equal(res.response.status, 200);
    const cleared = setCookies(res).find((c) => c.name === "mp_device");
    assert.ok(cleared);
    assert.equal(cleared.value, "");
    assert.equal(cleared.path, "/api/v1/dashboard/auth");
    assert.equal(laptop.device, undefined);

    await lock(email);
    assert.equal((await phone.login(email)).response.status, 429, "the phone is a new browser now");
    const kept = new Browser(ctx.app);
    kept.jar.set("mp_device", laptopCookie);
    assert.equal((await kept.login(email)).response.status, 429, "so is a copy of the laptop's old cookie");
    assert.equal(
      (await laptop.login(email)).response.status,
      429,
      "and the laptop itself, until the lockout ends",
    );

    // Once the lockout has aged out, a sign-in makes a browser trusted again.
    ctx.clock.advance(900_000);
    assert.equal((await laptop.login(email)).response.status, 200);
    await lock(email);
    assert.equal((await laptop.login(email)).response.status, 200);
  });
});

/**
 * Concurrent bursts: every guess of a burst is sent before any answer comes back, so a throttle
 * that only reads its counts before checking and records the failure after lets all of them be
 * checked. Each axis must reserve the attempt before the check. Run on the embedded database and
 * on PostgreSQL (TEST_DATABASE_URL), in memory and with Redis.
 */
const BURST = 200;

/** An address no other test (nor an earlier run against the same Redis) has used. */
function freshIp() {
  const hex = randomBytes(8).toString("hex").match(/.{4}/g)!;
  return `2001:db8:${hex.join(":")}`;
}

/** BURST wrong guesses with the right one among them (not first: at index 137). */
function burstOf<T>(wrongGuess: (i: number) => T, right: T): T[] {
  const guesses = Array.from({ length: BURST }, (_, i) => wrongGuess(i));
  guesses.splice(137, 0, right);
  return guesses;
}

function tally(responses: Answer[]) {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.response.status] = (counts[res.response.status] ?? 0) + 1;
  return counts;
}

for (const redis of [false, true]) {
  const store = redis ? "Redis" : "process memory";

  describe(`concurrent bursts of guesses (${store})`, () => {
    const MAX_LOGIN_FAILURES = 10;
    const MAX_SECRET_FAILURES = 5;
    let verified = 0;
    /** argon2id, counting each verification whatever its answer. */
    const passwords = {
      ...argon2idPasswords,
      async verify(hash: string, password: string) {
        verified++;
        return argon2idPasswords.verify(hash, password);
      },
    };
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(
        {
          LOGIN_MAX_FAILURES: String(MAX_LOGIN_FAILURES),
          LOGIN_FAILURE_WINDOW_SECONDS: "900",
          CREDENTIAL_MAX_FAILURES: String(MAX_SECRET_FAILURES),
          CREDENTIAL_FAILURE_WINDOW_SECONDS: "900",
        },
        { redis, passwords, frozenClock: true },
      );
    });
    after(() => ctx.close());

    describe("sign-in verifies at most the limit's number of passwords", () => {
      const MAX = MAX_LOGIN_FAILURES;

      /** Sends the guesses at once and answers the responses and how many passwords were verified. */
      async function burst(send: (guess: string) => Promise<Answer>, guesses: string[]) {
        verified = 0;
        const responses = await Promise.all(guesses.map((guess) => send(guess)));
        for (const res of responses) assert.ok([200, 401, 429].includes(res.response.status), text(res));
        return { responses, verified, statuses: tally(responses) };
      }

      it("per e-mail address, from one address without a device cookie", async () => {
        const { email } = await signup(ctx.app);
        const ip = freshIp();
        const { responses, statuses, verified } = await burst(
          (password) => new Browser(ctx.app, ip).login(email, password),
          burstOf((i) => `wrong guess ${i}`, PASSWORD),
        );
        assert.ok(verified <= MAX, `${verified} passwords verified, ${JSON.stringify(statuses)}`);
        assert.equal((statuses[401] ?? 0) + (statuses[200] ?? 0), verified);
        assert.equal(statuses[429], BURST + 1 - verified, "every other guess refused unverified");
        // Every refusal says the same, the right password's included.
        const refusals = responses.filter((res) => res.response.status === 429).map((res) => answer(res));
        assert.ok(refusals.every((answer) => JSON.stringify(answer) === JSON.stringify(refusals[0])));
      });

      it("per device cookie: a stolen cookie gets its own limit, not a burst", async () => {
        const { email, browser } = await signup(ctx.app);
        const ip = freshIp();
        const { statuses, verified } = await burst(
          (password) => {
            const thief = new Browser(ctx.app, ip);
            thief.jar.set("mp_device", browser.device!);
            return thief.login(email, password);
          },
          burstOf((i) => `wrong guess ${i}`, PASSWORD),
        );
        assert.ok(verified <= MAX, `${verified} passwords verified, ${JSON.stringify(statuses)}`);
        assert.equal(statuses[429], BURST + 1 - verified);
      });

      it("per address: one address spraying many e-mail addresses at once", async () => {
        const victim = await signup(ctx.app);
        const ip = freshIp();
        // One guess per e-mail, so only the address's bound (5x) can stop them.
        const { statuses, verified } = await burst(
          (email) => new Browser(ctx.app, ip).login(email, email === victim.email ? PASSWORD : "guess"),
          burstOf((i) => uniqueEmail(`spray${i}`), victim.email),
        );
        assert.ok(verified <= MAX * 5, `${verified} passwords verified, ${JSON.stringify(statuses)}`);
        assert.equal(statuses[429], BURST + 1 - verified);
      });
    });

    describe("client and key secrets: at most the limit's number checked", () => {
      const MAX = MAX_SECRET_FAILURES;

      // Each guess comes from its own address (a botnet's burst): the address bound, which for
      // random secrets refuses only after the check, then never refuses, so a 429 can only be the
      // per-id refusal before the check, and every other answer is a secret that was checked.
      const checkedOf = (statuses: Record<number, number>) =>
        Object.entries(statuses).reduce((sum, [status, n]) => sum + (status === "429" ? 0 : n), 0);

      // (On the embedded database without Redis nothing in this endpoint's check waits for I/O, so
      // the requests of a burst through app.inject run one after another and the old read-then-record
      // guard happened to hold there; with Redis or on PostgreSQL it checked all 201.)
      it("client secrets at the token endpoint", async () => {
        const { clientId, clientSecret } = await registerApp(ctx.app, ["read_products"]);
        const responses = await Promise.all(
          burstOf((i) => `mpcs_wrong${i}`, clientSecret).map((secret) =>
            apiClient(ctx.app, { remoteAddress: freshIp() }).POST("/api/v1/oauth/token", {
              body: {
                grant_type: "refresh_token",
                refresh_token: "mprt_unknown",
                client_id: clientId,
                client_secret: secret,
              },
              ...asForm,
            }),
          ),
        );
        const statuses = tally(responses);
        // 401 invalid_client for a wrong secret, 400 invalid_grant for the right one (unknown token).
        for (const status of Object.keys(statuses)) assert.ok(["400", "401", "429"].includes(status), status);
        const checked = checkedOf(statuses);
        assert.ok(checked <= MAX, `${checked} client secrets checked, ${JSON.stringify(statuses)}`);
        assert.equal(statuses[429], BURST + 1 - checked);
      });

      it("API key secrets at the developer API", async () => {
        const m = await merchantWithStore(ctx.app);
        const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: m.slug } },
          body: {
            name: "Burst",
            scopes: ["read_products"],
          },
        });
        assert.equal(created.response.status, 201);
        const responses = await Promise.all(
          burstOf((i) => `mpsk_wrong${i}`, created.data!.data.secret as string).map((secret) =>
            apiClient(ctx.app, {
              remoteAddress: freshIp(),
              headers: { "x-api-key": created.data!.data.keyId, "x-api-secret": secret },
            }).GET("/api/v1/developer/store"),
          ),
        );
        const statuses = tally(responses);
        for (const status of Object.keys(statuses)) assert.ok(["200", "401", "429"].includes(status), status);
        const checked = checkedOf(statuses);
        assert.ok(checked <= MAX, `${checked} key secrets checked, ${JSON.stringify(statuses)}`);
        assert.equal(statuses[429], BURST + 1 - checked);
      });
    });
  });
}
