import { randomBytes } from "node:crypto";
import { SECRET_PREFIX, type SecretKind } from "../contracts/credentials.ts";
import { ID_PREFIX, type IdKind, idLength } from "../contracts/resources.ts";
import { base62OfHash, newSecret, randomBase62 } from "./crypto.ts";

/** A new id of `kind`: its prefix and random base62 (about 131 bits for records), never sequential. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(idLength(kind))}`;
}

/**
 * A new secret of `kind`: its prefix and 43 random base62 characters (see lib/crypto.ts newSecret).
 * Not webhook secrets, which have their own form (newWebhookSecret).
 */
export function newSecretOf(kind: Exclude<SecretKind, "webhookSecret">): string {
  return newSecret(SECRET_PREFIX[kind]);
}

/** Random bytes of a webhook signing secret (Standard Webhooks asks for 24 to 64). */
export const WEBHOOK_SECRET_BYTES = 32;

/**
 * A new webhook signing secret (a subscription's or a listen session's) in the Standard Webhooks
 * form, `whsec_<base64 of 32 random bytes>` (standard alphabet, padded: 44 characters), so the
 * stock verifiers take it as returned: their key is the decoded bytes, the spec's
 * `x-webhook-signature` key the whole text (delivery/signing.ts).
 */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX.webhookSecret}_${randomBytes(WEBHOOK_SECRET_BYTES).toString("base64")}`;
}

/**
 * An id of `kind` derived from `parts` (SHA-256 of them, in base62): the same parts always give
 * the same id. For what must keep its id when it is made again, such as an event streamed to a
 * listen session a second time after a reconnect (receivers drop the repeat by its id).
 */
export function derivedId(kind: IdKind, ...parts: string[]): string {
  return `${ID_PREFIX[kind]}_${base62OfHash(parts.join("\u0000"), idLength(kind))}`;
}
