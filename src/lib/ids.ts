import { SECRET_PREFIX, type SecretKind } from "../contracts/credentials.ts";
import { ID_PREFIX, type IdKind, idLength } from "../contracts/resources.ts";
import { base62OfHash, newSecret, randomBase62 } from "./crypto.ts";

/** A new id of `kind`: its prefix and random base62 (about 131 bits for records), never sequential. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(idLength(kind))}`;
}

/** A new secret of `kind`: its prefix and 43 random base62 characters (see lib/crypto.ts newSecret). */
export function newSecretOf(kind: SecretKind): string {
  return newSecret(SECRET_PREFIX[kind]);
}

/**
 * An id of `kind` derived from `parts` (SHA-256 of them, in base62): the same parts always give
 * the same id. For what must keep its id when it is made again, such as an event streamed to a
 * listen session a second time after a reconnect (receivers drop the repeat by its id).
 */
export function derivedId(kind: IdKind, ...parts: string[]): string {
  return `${ID_PREFIX[kind]}_${base62OfHash(parts.join("\u0000"), idLength(kind))}`;
}
