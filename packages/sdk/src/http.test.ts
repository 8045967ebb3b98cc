import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorFromResponse, PlatformError } from "./errors.ts";
import { retryingFetch } from "./http.ts";

const envelope = (code: string, status: number, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ success: false, message: code, error: { code, message: code, requestId: "req-1" } }),
    {
      status,
      headers: { "content-type": "application/json", ...headers },
    },
  );

function script(answers: Array<Response | Error>) {
  const seen: Request[] = [];
  const waits: number[] = [];
  const fetcher = retryingFetch({
    fetch: async (request) => {
      seen.push(request);
      const next = answers.shift();
      if (!next) throw new Error("no more answers");
      if (next instanceof Error) throw next;
      return next;
    },
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    baseDelayMs: 100,
  });
  return { fetcher, seen, waits };
}

describe("retryingFetch", () => {
  it("waits out a 429 for Retry-After (else X-RateLimit-Reset) and retries", async () => {
    const { fetcher, waits, seen } = script([
      envelope("RATE_LIMITED", 429, { "retry-after": "2" }),
      envelope("RATE_LIMITED", 429, { "x-ratelimit-reset": "3" }),
      new Response("{}", { status: 200 }),
    ]);
    const res = await fetcher(new Request("http://platform.test/api/v1/apps/api/products"));
    assert.equal(res.status, 200);
    assert.equal(seen.length, 3);
    assert.deepEqual(waits, [2125, 3125]);
  });

  it("gives the 429 back when the wait is longer than maxDelayMs, or retries are spent", async () => {
    const { fetcher, seen } = script([envelope("RATE_LIMITED", 429, { "retry-after": "3600" })]);
    assert.equal((await fetcher(new Request("http://platform.test/x"))).status, 429);
    assert.equal(seen.length, 1);
    const many = script(
      Array.from({ length: 5 }, () => envelope("RATE_LIMITED", 429, { "retry-after": "1" })),
    );
    assert.equal((await many.fetcher(new Request("http://platform.test/x"))).status, 429);
    assert.equal(many.seen.length, 4, "first attempt + 3 retries");
  });

  it("retries a GET on 5xx and network errors with growing jittered back-off", async () => {
    const { fetcher, waits } = script([
      new TypeError("socket hang up"),
      envelope("SERVICE_UNAVAILABLE", 503),
      new Response("{}", { status: 200 }),
    ]);
    assert.equal((await fetcher(new Request("http://platform.test/x"))).status, 200);
    assert.deepEqual(waits, [50, 100]);
  });

  it("gives every POST one Idempotency-Key, the same on each retry, so a retry never creates twice", async () => {
    const { fetcher, seen } = script([new TypeError("reset"), new Response("{}", { status: 201 })]);
    await fetcher(new Request("http://platform.test/p", { method: "POST", body: '{"title":"Mug"}' }));
    const keys = seen.map((r) => r.headers.get("idempotency-key"));
    assert.equal(keys.length, 2);
    assert.match(keys[0] ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(keys[0], keys[1]);
    assert.equal(await seen[1]?.text(), '{"title":"Mug"}', "the body is sent again");
    const own = script([new Response("{}", { status: 201 })]);
    await own.fetcher(
      new Request("http://platform.test/p", {
        method: "POST",
        headers: { "idempotency-key": "mine-123" },
        body: "{}",
      }),
    );
    assert.equal(own.seen[0]?.headers.get("idempotency-key"), "mine-123");
  });

  it("throws NETWORK_ERROR when the platform cannot be reached at all", async () => {
    const { fetcher } = script([
      new TypeError("a"),
      new TypeError("b"),
      new TypeError("c"),
      new TypeError("ECONNREFUSED"),
    ]);
    await assert.rejects(fetcher(new Request("http://platform.test/x")), (e: unknown) => {
      assert.ok(e instanceof PlatformError);
      assert.equal(e.code, "NETWORK_ERROR");
      assert.equal(e.status, 0);
      return true;
    });
  });
});

describe("errorFromResponse", () => {
  it("reads the envelope: code, status, request id, details, Retry-After", async () => {
    const e = await errorFromResponse(envelope("RATE_LIMITED", 429, { "retry-after": "7" }));
    assert.deepEqual([e.code, e.status, e.requestId, e.retryAfterSeconds], ["RATE_LIMITED", 429, "req-1", 7]);
    const rfc = await errorFromResponse(
      new Response(JSON.stringify({ error: "invalid_grant", error_description: "used" }), { status: 400 }),
    );
    assert.deepEqual([rfc.code, rfc.message], ["INVALID_GRANT", "used"]);
    const html = await errorFromResponse(
      new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "x-request-id": "r9" } }),
    );
    assert.deepEqual([html.code, html.requestId], ["SERVICE_UNAVAILABLE", "r9"]);
  });
});
