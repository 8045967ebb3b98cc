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
