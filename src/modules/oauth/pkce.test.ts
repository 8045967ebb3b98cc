import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { s256, verifyPkce } from "./pkce.ts";

describe("PKCE S256", () => {
  it("matches the RFC 7636 appendix B example", () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    assert.equal(s256(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    assert.ok(verifyPkce("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", verifier));
  });
  it("refuses a wrong, missing or malformed verifier", () => {
    const challenge = s256("a".repeat(43));
    assert.ok(!verifyPkce(challenge, "b".repeat(43)));
    assert.ok(!verifyPkce(challenge, undefined));
    assert.ok(!verifyPkce(challenge, "short"));
    assert.ok(!verifyPkce(challenge, `${"a".repeat(42)} `));
  });
});
