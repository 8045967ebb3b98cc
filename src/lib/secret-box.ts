import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * AES-256-GCM for secrets the service must read back (webhook signing secrets). Text format:
 * `v1.<iv>.<tag>.<ciphertext>`, base64url parts; a wrong key or any tampering throws.
 */
export function createSecretBox(key: Buffer) {
  if (key.length !== 32) throw new Error("The secrets key must be 32 bytes.");
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), body]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed: string): string {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unknown secret format.");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;

/** Decodes a configured key (base64 or base64url of 32 bytes). */
export function parseSecretsKey(text: string): Buffer {
  const key = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (key.length !== 32)
    throw new Error("SECRETS_KEY must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`).");
  return key;
}

/**
 * The key from SECRETS_KEY, or on the embedded default one generated into DATA_DIR/secrets.key
 * (mode 0600) on first start and reused after. A server database needs an explicit key, because
 * several instances must share it and it must not live beside a copy of the data.
 */
export function loadSecretsKey(input: {
  secretsKey?: string | undefined;
  dataDir?: string | undefined;
}): Buffer {
  if (input.secretsKey) return parseSecretsKey(input.secretsKey);
  if (!input.dataDir) throw new Error("SECRETS_KEY is required when DATABASE_URL is set.");
  const file = join(input.dataDir, "secrets.key");
  if (existsSync(file)) return parseSecretsKey(readFileSync(file, "utf8").trim());
  mkdirSync(input.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return key;
}
