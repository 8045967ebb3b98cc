import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../errors.ts";
import { createCredentialGuard, createFailureThrottle, createRateLimiter } from "./limiters.ts";
import { createMemoryWindowStore } from "./sliding-window.ts";

describe("limiters sharing one store", () => {
  const clock = { now: () => new Date(1_000_000) };

  it("never count each other's hits for the same key", async () => {
    const store = createMemoryWindowStore();
    const quota = createRateLimiter({ store, clock }, 100, 60_000);
    const throttle = createFailureThrottle({ store, clock }, 2, 60_000);
    for (let i = 0; i < 10; i++) await quota.consume("apikey:k1");
    assert.ok(!((await throttle.reserve("apikey:k1")) instanceof AppError));
    await throttle.recordFailure("apikey:k1");
    assert.equal((await quota.consume("apikey:k1")).remaining, 89);
  });

  it("refuses reservations at maxFailures with Retry-After; a release or a clear frees slots", async () => {
    const store = createMemoryWindowStore();
    const throttle = createFailureThrottle({ store, clock }, 2, 60_000);
    const held = await throttle.reserve("a");
    assert.ok(!(held instanceof AppError));
    assert.equal(held.count, 1);
    await throttle.recordFailure("a");
    const refused = await throttle.reserve("a");
    assert.ok(refused instanceof AppError);
    assert.equal(refused.code, "RATE_LIMITED");
    assert.equal(refused.headers?.["retry-after"], "60");
    assert.ok(!((await throttle.reserve("b")) instanceof AppError));
    await held.release();
    assert.ok(!((await throttle.reserve("a")) instanceof AppError), "the released slot");
    assert.ok((await throttle.reserve("a")) instanceof AppError);
    await throttle.clear("a");
    assert.ok(!((await throttle.reserve("a")) instanceof AppError));
  });
});

describe("credential guard", () => {
  const clock = { now: () => new Date(1_000_000) };
  const wrong = () => new AppError("INVALID_CLIENT");
  const code = (e: unknown) => (e as AppError).code;
  const attempt = (
    guard: ReturnType<typeof createCredentialGuard>,
    id: string,
    ip: string | null,
    ok: boolean,
  ) =>
    guard
      .verify({ id, ip }, async () => (ok ? "subject" : undefined), wrong)
      .then(
        (value) => value,
        (error: unknown) => code(error),
      );

  it("random secrets: the IP bound refuses only wrong credentials; the id bound refuses all", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 2, windowMs: 60_000, secret: "random" },
    );
    for (let i = 0; i < 10; i++)
      assert.equal(await attempt(guard, `id${i}`, "1.1.1.1", false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "id-x", "1.1.1.1", false), "RATE_LIMITED");
    assert.equal(await attempt(guard, "id-y", "1.1.1.1", true), "subject");
    assert.equal(await attempt(guard, "id-z", "2.2.2.2", false), "INVALID_CLIENT");
    // id-x failed once from the throttled address, once more elsewhere: now even its right secret waits.
    assert.equal(await attempt(guard, "id-x", "2.2.2.2", false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "id-x", "3.3.3.3", true), "RATE_LIMITED");
  });

  it("keeps the password and the random-secret buckets apart on one store", async () => {
    const store = createMemoryWindowStore();
    const secrets = createCredentialGuard(
      { store, clock },
      { maxFailures: 2, windowMs: 60_000, secret: "random" },
    );
    const passwords = createCredentialGuard(
      { store, clock },
      { maxFailures: 2, windowMs: 60_000, secret: "password" },
    );
    // Enough wrong client secrets from one address to fill both IP bounds if they were shared.
    for (let i = 0; i < 20; i++) await attempt(secrets, `client${i}`, "1.1.1.1", false);
    assert.equal(await attempt(secrets, "client-x", "1.1.1.1", false), "RATE_LIMITED");
    // A password sign-in from that address is still judged on its own.
    assert.equal(await attempt(passwords, "someone@example.com", "1.1.1.1", true), "subject");
  });

  it("passwords: the IP bound refuses before verification; ip null leaves it out", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 2, windowMs: 60_000, secret: "password" },
    );
    for (let i = 0; i < 10; i++)
      assert.equal(await attempt(guard, `e${i}`, "1.1.1.1", false), "INVALID_CLIENT");
    let checked = false;
    const refused = await guard
      .verify(
        { id: "e-new", ip: "1.1.1.1" },
        async () => {
          checked = true;
          return "subject";
        },
        wrong,
      )
      .catch(code);
    assert.equal(refused, "RATE_LIMITED");
    assert.equal(checked, false, "a refused attempt costs no verification");
    assert.equal(await attempt(guard, "device:1", null, true), "subject");
  });

  /**
   * A concurrent burst: every attempt is started before any check finishes (a check yields a
   * macrotask, like argon2 on the thread pool; the memory store answers in microtasks). Answers
   * the outcome of each attempt and how many credentials were checked.
   */
  async function burst(
    guard: ReturnType<typeof createCredentialGuard>,
    attempts: { id: string; ip: string | null; ok: boolean }[],
  ) {
    let checked = 0;
    const outcomes = await Promise.all(
      attempts.map(({ id, ip, ok }) =>
        guard
          .verify(
            { id, ip },
            async () => {
              checked++;
              await new Promise((resolve) => setImmediate(resolve));
              return ok ? "subject" : undefined;
            },
            wrong,
          )
          .catch(code),
      ),
    );
    return { outcomes, checked };
  }
  const count = (outcomes: string[], outcome: string) => outcomes.filter((o) => o === outcome).length;
  const guesses = (n: number, at: (i: number) => { id: string; ip: string | null }, rightAt = -1) =>
    Array.from({ length: n }, (_, i) => ({ ...at(i), ok: i === rightAt }));

  for (const secret of ["password", "random"] as const) {
    it(`${secret}: a concurrent burst at one id checks at most maxFailures credentials`, async () => {
      const guard = createCredentialGuard(
        { store: createMemoryWindowStore(), clock },
        { maxFailures: 3, windowMs: 60_000, secret },
      );
      // The right credential comes after the limit: it is refused like the rest, unchecked.
      const { outcomes, checked } = await burst(
        guard,
        guesses(200, () => ({ id: "victim", ip: "1.1.1.1" }), 150),
      );
      assert.equal(checked, 3);
      assert.equal(count(outcomes, "INVALID_CLIENT"), 3);
      assert.equal(count(outcomes, "RATE_LIMITED"), 197);
      assert.equal(outcomes[150], "RATE_LIMITED");
      // The three failures are recorded: even the right credential waits now.
      assert.equal(await attempt(guard, "victim", "2.2.2.2", true), "RATE_LIMITED");
    });
  }

  it("password: a concurrent burst from one address over many ids checks at most the address's bound", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 2, windowMs: 60_000, secret: "password" },
    );
    const { outcomes, checked } = await burst(
      guard,
      guesses(100, (i) => ({ id: `e${i}`, ip: "1.1.1.1" })),
    );
    assert.equal(checked, 10);
    assert.equal(count(outcomes, "RATE_LIMITED"), 90);
    // An attempt the address refused gave its id slot back: that id was never guessed.
    assert.equal(await attempt(guard, "e99", null, false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "e99", null, false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "e99", null, false), "RATE_LIMITED");
  });

  it("password: a concurrent burst with ip null (a device cookie) is bounded by the id alone", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 4, windowMs: 60_000, secret: "password" },
    );
    const { checked } = await burst(
      guard,
      guesses(200, () => ({ id: "device:n1", ip: null })),
    );
    assert.equal(checked, 4);
  });

  it("random: a burst over many ids from one address is checked, the address refusing only after", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 2, windowMs: 60_000, secret: "random" },
    );
    // As documented: for random secrets the address bound answers wrong credentials 429 once it
    // is over, but refuses none before the check (a right one from that address must get in).
    const { outcomes, checked } = await burst(
      guard,
      guesses(30, (i) => ({ id: `client${i}`, ip: "1.1.1.1" }), 29),
    );
    assert.equal(checked, 30);
    assert.equal(count(outcomes, "INVALID_CLIENT"), 10);
    assert.equal(count(outcomes, "RATE_LIMITED"), 19);
    assert.equal(outcomes[29], "subject");
  });

  it("gives the slots back when the attempt is right or the check fails, and keeps them when wrong", async () => {
    const guard = createCredentialGuard(
      { store: createMemoryWindowStore(), clock },
      { maxFailures: 2, windowMs: 60_000, secret: "password" },
    );
    for (let i = 0; i < 5; i++) assert.equal(await attempt(guard, "e", "1.1.1.1", true), "subject");
    const broken = () =>
      guard.verify(
        { id: "e", ip: "1.1.1.1" },
        async () => {
          throw new Error("database unavailable");
        },
        wrong,
      );
    for (let i = 0; i < 5; i++) await assert.rejects(broken(), /database unavailable/);
    assert.equal(await attempt(guard, "e", "1.1.1.1", false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "e", "1.1.1.1", false), "INVALID_CLIENT");
    assert.equal(await attempt(guard, "e", "1.1.1.1", true), "RATE_LIMITED");
  });

  it("clearOnSuccess clears the id's failures, and sends no clear when there were none", async () => {
    const memory = createMemoryWindowStore();
    const cleared: string[] = [];
    const store = {
      ...memory,
      clear: (key: string) => {
        cleared.push(key);
        return memory.clear(key);
      },
    };
    const guard = createCredentialGuard(
      { store, clock },
      { maxFailures: 2, windowMs: 60_000, secret: "random" },
    );
    const verify = (ok: boolean) =>
      guard.verify({ id: "client:c1", ip: "1.1.1.1" }, async () => (ok ? "subject" : undefined), wrong, {
        clearOnSuccess: true,
      });
    assert.equal(await verify(true), "subject");
    assert.deepEqual(cleared, [], "no failures, nothing to clear");
    assert.equal(await verify(false).catch(code), "INVALID_CLIENT");
    assert.equal(await verify(true), "subject");
    assert.deepEqual(cleared, ["fail:random:client:c1"]);
    // Cleared: two more failures are needed before the id is refused.
    assert.equal(await verify(false).catch(code), "INVALID_CLIENT");
    assert.equal(await verify(true), "subject");
  });
});
