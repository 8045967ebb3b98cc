import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto";

// The key loader lives in secrets-key.ts; re-exported for the modules that import it from here.
export { loadSecretsKey, parseSecretsKey } from "./secrets-key.ts";

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PART = /^[A-Za-z0-9_-]*$/;

/**
 * AES-256-GCM for secrets the service must read back (webhook signing secrets). Text format:
 * `v1.<iv>.<tag>.<ciphertext>`, each part base64url; a fresh random 12-byte IV per seal. A wrong
 * key, any change to any part, or a format it does not know throws. The version prefix leaves
 * room for a later key id (rotation) without re-encrypting what is stored.
 */
export function createSecretBox(key: Buffer) {
  if (key.length !== 32) throw new Error("The secrets key must be 32 bytes.");
  // A private copy (the caller may reuse or zero its buffer), as a KeyObject: Node 24 tells a key
  // object from a buffer by catching an exception, ~10 µs of every cipher keyed with a Buffer
  // (the worker opens a subscription's secret for every delivery).
  const secretKey = createSecretKey(Buffer.from(key));
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", secretKey, iv, { authTagLength: TAG_BYTES });
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", ...[iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url"))].join(".");
    },
    open(sealed: string): string {
      const parts = sealed.split(".");
      const [version, ivText, tagText, bodyText] = parts;
      if (parts.length !== 4 || version !== "v1" || !parts.slice(1).every((p) => PART.test(p))) {
        throw new Error("Unknown sealed secret format.");
      }
      const iv = Buffer.from(ivText!, "base64url");
      const tag = Buffer.from(tagText!, "base64url");
      // GCM would accept a tag as short as 4 bytes, and a short tag is far easier to forge.
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
        throw new Error("Unknown sealed secret format.");
      const decipher = createDecipheriv("aes-256-gcm", secretKey, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([
          decipher.update(Buffer.from(bodyText!, "base64url")),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        throw new Error("Sealed secret could not be opened: wrong SECRETS_KEY or altered value.");
      }
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
