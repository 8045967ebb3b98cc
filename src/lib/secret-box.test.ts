import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createSecretBox, loadSecretsKey, parseSecretsKey } from "./secret-box.ts";

describe("secret box (AES-256-GCM)", () => {
  it("round-trips, with a fresh IV each time", () => {
    const box = createSecretBox(randomBytes(32));
    const a = box.seal("whsec_abc");
    const b = box.seal("whsec_abc");
    assert.notEqual(a, b);
    assert.equal(box.open(a), "whsec_abc");
    assert.ok(!a.includes("whsec_abc"));
  });

  it("refuses a wrong key and any tampering", () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal("secret");
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed));
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3]!, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    assert.throws(() => box.open([parts[0], parts[1], parts[2], flipped.toString("base64url")].join(".")));
    assert.throws(() => box.open("v2.x.y.z"));
  });

  it("loads SECRETS_KEY, or generates one 0600 file in DATA_DIR and reuses it", () => {
    const text = randomBytes(32).toString("base64url");
    assert.equal(parseSecretsKey(text).length, 32);
    assert.throws(() => parseSecretsKey("c2hvcnQ="));
    const dir = mkdtempSync(join(tmpdir(), "mp-key-"));
    const first = loadSecretsKey({ dataDir: dir });
    assert.deepEqual(loadSecretsKey({ dataDir: dir }), first);
    assert.equal(statSync(join(dir, "secrets.key")).mode & 0o777, 0o600);
    assert.throws(() => loadSecretsKey({}), /SECRETS_KEY is required/);
  });
});
