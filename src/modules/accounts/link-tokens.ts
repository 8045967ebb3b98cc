import { timingSafeEqual } from "node:crypto";
import { ID_PREFIX, type IdKind, idLength } from "../../contracts/index.ts";
import { randomBase62, sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";

/**
 * The secret of an e-mailed link (a password reset, an e-mail confirmation): `<record id>.<43
 * random base62 characters>` (256 bits). The record is found by its id; only the SHA-256 of the
 * secret is stored, and the presented secret's hash is compared with it in constant time, so
 * neither a database read nor the comparison's timing tells anything about a valid secret.
 */
export function newLinkToken(kind: IdKind & ("passwordReset" | "emailChange")) {
  const id = newId(kind);
  const secret = randomBase62(43);
  return { id, token: `${id}.${secret}`, secretHash: sha256Hex(secret) };
}

/** The record id and secret of a presented token, or null when it cannot be one of `kind`. */
export function parseLinkToken(kind: "passwordReset" | "emailChange", token: string) {
  const match = new RegExp(`^(${ID_PREFIX[kind]}_[0-9A-Za-z]{${idLength(kind)}})\\.([0-9A-Za-z]{43})$`).exec(
    token,
  );
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The pattern a token field accepts (both kinds), for request schemas. */
export const LINK_TOKEN_PATTERN = `^(${ID_PREFIX.passwordReset}|${ID_PREFIX.emailChange})_[0-9A-Za-z]{22}\\.[0-9A-Za-z]{43}$`;
