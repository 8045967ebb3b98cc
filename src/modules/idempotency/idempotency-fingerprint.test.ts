import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createSecretBox } from "../../lib/secret-box.ts";
import { canonicalJson, requestFingerprint, responseSealingKey } from "./idempotency-fingerprint.ts";

describe("idempotency fingerprint", () => {
  it("writes one text for bodies that differ only in key order, at every depth", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } }),
      '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
    );
    assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
    assert.equal(canonicalJson(undefined), "null");
  });

  it("tells requests apart by method, route, path parameters, query and body", () => {
    const base = {
      method: "POST",
      route: "/stores/:slug/products",
      params: { slug: "a" },
      query: {},
      body: { title: "Mug", price: "1.00" },
    };
    const same = requestFingerprint(base);
    assert.match(same, /^[0-9a-f]{64}$/);
    assert.equal(requestFingerprint({ ...base, body: { price: "1.00", title: "Mug" } }), same);
    for (const change of [
      { method: "PUT" },
      { route: "/stores/:slug/customers" },
      { params: { slug: "b" } },
      { query: { dryRun: true } },
      { body: { title: "Mug", price: "1.01" } },
      { body: undefined },
    ])
      assert.notEqual(requestFingerprint({ ...base, ...change }), same, JSON.stringify(change));
  });

  it("seals a response under a key that needs the secrets key, the scope and the client's key", () => {
    const secrets = randomBytes(32);
    const sealed = createSecretBox(responseSealingKey(secrets, "apikey:mpk_1", "k-1")).seal("whsec_x");
    assert.equal(createSecretBox(responseSealingKey(secrets, "apikey:mpk_1", "k-1")).open(sealed), "whsec_x");
    for (const [key, scope, idem] of [
      [randomBytes(32), "apikey:mpk_1", "k-1"],
      [secrets, "apikey:mpk_2", "k-1"],
      [secrets, "apikey:mpk_1", "k-2"],
    ] as const)
      assert.throws(() => createSecretBox(responseSealingKey(key, scope, idem)).open(sealed));
  });
});
