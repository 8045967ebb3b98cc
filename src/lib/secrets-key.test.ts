import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { deriveKey, loadSecretsKey, parseSecretsKey } from "./secrets-key.ts";

const run = promisify(execFile);
const made: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mp-key-"));
  made.push(dir);
  return dir;
};
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const modeOf = (file: string) => statSync(file).mode & 0o777;

describe("secrets key", () => {
  it("parses 32 bytes in base64 or base64url, padded or not, with surrounding whitespace", () => {
    const key = randomBytes(32);
    for (const text of [
      key.toString("base64"),
      key.toString("base64").replace(/=$/, ""),
      key.toString("base64url"),
      ` ${key.toString("base64url")}\n`,
    ]) {
      assert.deepEqual(parseSecretsKey(text), key, text);
    }
  });

  it("refuses anything that is not exactly 32 bytes of base64", () => {
    for (const text of [
      "",
      "c2hvcnQ=",
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      randomBytes(32).toString("hex"),
      `${randomBytes(32).toString("base64url").slice(0, 42)}!`,
      `${randomBytes(32).toString("base64url").slice(0, 20)} ${randomBytes(32).toString("base64url").slice(0, 22)}`,
    ]) {
      assert.throws(() => parseSecretsKey(text), /SECRETS_KEY must be 32 bytes/, text);
    }
  });

  it("uses SECRETS_KEY when set, and never touches DATA_DIR then", () => {
    const key = randomBytes(32);
    const dir = freshDir();
    assert.deepEqual(loadSecretsKey({ secretsKey: key.toString("base64url"), dataDir: dir }), key);
    assert.deepEqual(readdirSync(dir), []);
  });

  it("requires SECRETS_KEY on a server database (no DATA_DIR passed)", () => {
    assert.throws(() => loadSecretsKey({}), /SECRETS_KEY is required/);
    assert.throws(() => loadSecretsKey({ secretsKey: "" }), /SECRETS_KEY is required/);
  });

  it("generates DATA_DIR/secrets.key once, mode 0600, and reuses it", () => {
    const dir = join(freshDir(), "nested", "data");
    const first = loadSecretsKey({ dataDir: dir });
    assert.equal(first.length, 32);
    const file = join(dir, "secrets.key");
    assert.equal(modeOf(file), 0o600);
    assert.deepEqual(parseSecretsKey(readFileSync(file, "utf8")), first);
    assert.deepEqual(loadSecretsKey({ dataDir: dir }), first);
    assert.deepEqual(readdirSync(dir), ["secrets.key"], "no temporary file left behind");
    assert.notDeepEqual(loadSecretsKey({ dataDir: freshDir() }), first);
  });

  it("tightens a key file that others can read, and names a corrupt one", () => {
    const dir = freshDir();
    const file = join(dir, "secrets.key");
    const key = randomBytes(32);
    writeFileSync(file, key.toString("base64"));
    chmodSync(file, 0o644);
    assert.deepEqual(loadSecretsKey({ dataDir: dir }), key);
    assert.equal(modeOf(file), 0o600);
    writeFileSync(file, "not a key\n");
    assert.throws(
      () => loadSecretsKey({ dataDir: dir }),
      (e: Error) => e.message.startsWith(`${file} must be 32 bytes`),
    );
  });

  it("gives every process starting at once the same key", async () => {
    const dir = freshDir();
    const rounds = 200;
    // Each process spins until the same instant, then creates the keys of the same `rounds` data
    // directories in the same order, so their first-start checks overlap many times.
    const startAt = Date.now() + 1500;
    const script = `import { loadSecretsKey } from ${JSON.stringify(new URL("./secrets-key.ts", import.meta.url).href)};
      while (Date.now() < ${startAt});
      const keys = [];
      for (let i = 0; i < ${rounds}; i++) keys.push(loadSecretsKey({ dataDir: ${JSON.stringify(dir)} + "/" + i }).toString("hex"));
      process.stdout.write(keys.join(","));`;
    const outputs = await Promise.all(
      Array.from({ length: 8 }, () => run(process.execPath, ["--input-type=module", "-e", script])),
    );
    const first = outputs[0]!.stdout.split(",");
    assert.equal(first.length, rounds);
    for (const key of first) assert.match(key, /^[0-9a-f]{64}$/);
    for (const output of outputs) assert.deepEqual(output.stdout.split(","), first);
    assert.equal(new Set(first).size, rounds);
    for (let i = 0; i < rounds; i++) assert.deepEqual(readdirSync(join(dir, String(i))), ["secrets.key"]);
  });

  it("derives a stable, distinct 32-byte key per purpose", () => {
    const key = randomBytes(32);
    const a = deriveKey(key, "device-cookie");
    assert.equal(a.length, 32);
    assert.deepEqual(deriveKey(Buffer.from(key), "device-cookie"), a, "same key, same purpose");
    assert.notDeepEqual(deriveKey(key, "other"), a, "another purpose");
    assert.notDeepEqual(deriveKey(randomBytes(32), "device-cookie"), a, "another key");
    assert.notDeepEqual(a, key);
  });
});
