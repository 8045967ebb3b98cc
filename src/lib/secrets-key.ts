import { hkdfSync, randomBytes } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** 32 bytes in base64 (44 characters with its `=`) or base64url (43, unpadded). */
const KEY_TEXT = /^[A-Za-z0-9+/_-]{43}=?$/;

/** Decodes a configured key: 32 bytes, base64 or base64url. Throws on anything else. */
export function parseSecretsKey(text: string, source = "SECRETS_KEY"): Buffer {
  const trimmed = text.trim();
  // Buffer.from(…, "base64") skips characters it does not know, so check the text first.
  const key = KEY_TEXT.test(trimmed)
    ? Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64")
    : null;
  if (key?.length !== 32) {
    throw new Error(`${source} must be 32 bytes, base64-encoded (e.g. \`openssl rand -base64 32\`).`);
  }
  return key;
}

/**
 * The key encrypting webhook subscription secrets: SECRETS_KEY when configured; otherwise (the
 * embedded default only) DATA_DIR/secrets.key, generated on first start with mode 0600 and
 * reused after. A server database (DATABASE_URL) needs an explicit key, because every instance
 * must share it and it must not sit beside the data it protects; the caller signals that case by
 * passing no `dataDir`.
 */
export function loadSecretsKey(input: {
  secretsKey?: string | undefined;
  dataDir?: string | undefined;
}): Buffer {
  if (input.secretsKey) return parseSecretsKey(input.secretsKey);
  if (!input.dataDir) throw new Error("SECRETS_KEY is required when DATABASE_URL is set.");
  const file = join(input.dataDir, "secrets.key");
  const existing = readKeyFile(file);
  if (existing) return existing;
  mkdirSync(input.dataDir, { recursive: true });
  // Written whole to a private temporary file, then linked into place: link() fails if the key
  // exists, so two processes starting at once agree on one key and neither reads a half-written
  // file.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    chmodSync(temporary, 0o600); // exactly 0600, whatever the umask
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  const key = readKeyFile(file);
  if (!key) throw new Error(`${file} could not be created.`);
  return key;
}

/**
 * A 32-byte key for one purpose, derived from the secrets key with HKDF-SHA256 (RFC 5869), so one
 * configured key serves several uses without any two sharing key material. Stable for as long as
 * the secrets key is: every instance and every restart derives the same key.
 */
export function deriveKey(secretsKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secretsKey, Buffer.alloc(0), `merchant-platform/${purpose}`, 32));
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const key = parseSecretsKey(text, file);
  // A key file readable by others (copied around, restored from a backup) is tightened, not
  // refused: refusing would stop the service over something it can fix itself.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}
