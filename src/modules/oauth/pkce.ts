import { createHash } from "node:crypto";
import { safeEqual } from "../../lib/crypto.ts";

/** RFC 7636: a verifier is 43-128 characters of [A-Za-z0-9-._~]; S256 is the only method we accept. */
export const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function verifyPkce(challenge: string, verifier: string | undefined): boolean {
  if (!verifier || !VERIFIER_PATTERN.test(verifier)) return false;
  return safeEqual(s256(verifier), challenge);
}
