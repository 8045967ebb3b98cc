import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createSecretBox } from "./secret-box.ts";

const FORMAT = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;

/** Replaces part `index` (1 = IV, 2 = tag, 3 = ciphertext) of a sealed value. */
function withPart(sealed: string, index: number, change: (bytes: Buffer) => Buffer): string {
  const parts = sealed.split(".");
  parts[index] = change(Buffer.from(parts[index]!, "base64url")).toString("base64url");
  return parts.join(".");
}
const flipFirstBit = (bytes: Buffer) => {
  const copy = Buffer.from(bytes);
  copy[0] = copy[0]! ^ 1;
  return copy;
};

describe("secret box (AES-256-GCM)", () => {
  it("round-trips in the v1 format, with a fresh IV each time", () => {
    const box = createSecretBox(randomBytes(32));
    const a = box.seal("whsec_abc");
    const b = box.seal("whsec_abc");
    assert.match(a, FORMAT);
    assert.notEqual(a, b);
    assert.notEqual(a.split(".")[1], b.split(".")[1]);
    assert.equal(box.open(a), "whsec_abc");
    assert.equal(box.open(b), "whsec_abc");
    assert.ok(!a.includes("whsec_abc"));
    for (const text of ["", "ünïcödé 🚚", "x".repeat(10_000)]) assert.equal(box.open(box.seal(text)), text);
  });

  it("opens a value sealed by an independent implementation (WebCrypto AES-GCM)", async () => {
    const raw = randomBytes(32);
    const iv = randomBytes(12);
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
    // WebCrypto appends the 16-byte tag to the ciphertext.
    const out = Buffer.from(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode("whsec_webcrypto")),
    );
    const body = out.subarray(0, out.length - 16);
    const tag = out.subarray(out.length - 16);
    const sealed = ["v1", iv, tag, body]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
    assert.equal(createSecretBox(raw).open(sealed), "whsec_webcrypto");
  });

  it("refuses a wrong key", () => {
    const sealed = createSecretBox(randomBytes(32)).seal("secret");
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed), /wrong SECRETS_KEY or altered/);
  });

  it("refuses any change to the IV, the tag or the ciphertext", () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal("secret");
    for (const index of [1, 2, 3])
      assert.throws(() => box.open(withPart(sealed, index, flipFirstBit)), `part ${index}`);
    // Dropping a ciphertext byte, or appending one.
    assert.throws(() => box.open(withPart(sealed, 3, (b) => b.subarray(1))));
    assert.throws(() => box.open(withPart(sealed, 3, (b) => Buffer.concat([b, Buffer.from([0])]))));
  });

  it("refuses a truncated tag, which GCM alone would accept", () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal("secret");
    // The first 4 bytes of the genuine tag: valid for a 32-bit GCM tag, so only the length check stops it.
    assert.throws(() => box.open(withPart(sealed, 2, (b) => b.subarray(0, 4))), /format/);
    assert.throws(() => box.open(withPart(sealed, 1, (b) => b.subarray(0, 8))), /format/);
  });

  it("refuses unknown formats", () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal("secret");
    const [, iv, tag, body] = sealed.split(".");
    for (const bad of [
      `v2.${iv}.${tag}.${body}`,
      `${iv}.${tag}.${body}`,
      `${sealed}.extra`,
      `v1.${iv}.${tag}.${body}!`,
      "whsec_plaintext",
      "",
    ]) {
      assert.throws(() => box.open(bad), /format/, bad);
    }
  });

  it("requires a 32-byte key and keeps its own copy of it", () => {
    assert.throws(() => createSecretBox(randomBytes(16)), /32 bytes/);
    const key = randomBytes(32);
    const box = createSecretBox(key);
    const sealed = box.seal("secret");
    key.fill(0);
    assert.equal(box.open(sealed), "secret");
  });
});
