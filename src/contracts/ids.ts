/**
 * Public id and credential prefixes: one per kind, so an id or a leaked secret says what it is
 * (secret scanners key on these). Ids are `<prefix>_` and `idLength` base62 characters.
 */
export const ID_PREFIX = {
  account: "acct",
  store: "store",
  product: "prod",
  customer: "cus",
  order: "ord",
  lineItem: "li",
  event: "evt",
  app: "app",
  installation: "inst",
  grant: "grant",
  subscription: "whsub",
  delivery: "whd",
  clientId: "mpc",
  apiKey: "mpk",
} as const;

/** Random characters after the prefix: 22 (about 131 bits) for records, 24 for public client/key ids. */
export const ID_LENGTH: Record<IdKind, number> = {
  account: 22,
  store: 22,
  product: 22,
  customer: 22,
  order: 22,
  lineItem: 22,
  event: 22,
  app: 22,
  installation: 22,
  grant: 22,
  subscription: 22,
  delivery: 22,
  clientId: 24,
  apiKey: 24,
};

export type IdKind = keyof typeof ID_PREFIX;

/** Prefixes of secrets (43 random characters each); only their hashes are stored. */
export const SECRET_PREFIX = {
  clientSecret: "mpcs",
  apiKeySecret: "mpsk",
  webhookSecret: "whsec",
  session: "mps",
  accessToken: "mpat",
  refreshToken: "mprt",
  authorizationCode: "mpac",
} as const;
export type SecretKind = keyof typeof SECRET_PREFIX;

/** Pattern accepted for an id of `kind` in a path or body; anything else is a 400 before any query. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIX[kind]}_[0-9A-Za-z]{${ID_LENGTH[kind]}}$`;
}
