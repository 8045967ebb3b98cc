import { SECRET_PREFIX, type SecretKind } from "../contracts/credentials.ts";
import { ID_PREFIX, type IdKind, idLength } from "../contracts/resources.ts";
import { newSecret, randomBase62 } from "./crypto.ts";

/** A new id of `kind`: its prefix and random base62 (about 131 bits for records), never sequential. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(idLength(kind))}`;
}

/** A new secret of `kind`: its prefix and 43 random base62 characters (see lib/crypto.ts newSecret). */
export function newSecretOf(kind: SecretKind): string {
  return newSecret(SECRET_PREFIX[kind]);
}
