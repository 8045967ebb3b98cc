/**
 * Prefixes of secrets: 43 random base62 characters each, only their hashes stored; except webhook
 * signing secrets, which the platform must read back (stored encrypted) and which are base64 of 32
 * random bytes since issue 19 (Standard Webhooks; lib/ids.ts newWebhookSecret).
 */
export const SECRET_PREFIX = {
  clientSecret: "mpcs",
  apiKeySecret: "mpsk",
  webhookSecret: "whsec",
  session: "mps",
  accessToken: "mpat",
  refreshToken: "mprt",
  authorizationCode: "mpac",
  invitation: "mpinv",
} as const;
export type SecretKind = keyof typeof SECRET_PREFIX;
