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
    await throttle.assertAllowed("apikey:k1");
    await throttle.recordFailure("apikey:k1");
    assert.equal((await quota.consume("apikey:k1")).remaining, 89);
  });

  it("blocks after maxFailures with Retry-After, and success clears the count", async () => {
    const store = createMemoryWindowStore();
    const throttle = createFailureThrottle({ store, clock }, 2, 60_000);
    await throttle.recordFailure("a");
    await throttle.recordFailure("a");
    await assert.rejects(
      throttle.assertAllowed("a"),
      (e: { code: string; headers: Record<string, string> }) => {
        return e.code === "RATE_LIMITED" && e.headers["retry-after"] === "60";
      },
    );
    await throttle.assertAllowed("b");
    await throttle.clear("a");
    await throttle.assertAllowed("a");
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
