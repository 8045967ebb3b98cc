import { Ajv } from "ajv";
import Type, { type Static } from "typebox";

/**
 * Every environment variable the service reads, declared once. The descriptions are printed by
 * `node src/cli.ts config` and copied into the README's configuration table.
 */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 3000,
    description: "TCP port of the HTTP server.",
  }),
  HOST: Type.String({ default: "0.0.0.0", description: "Interface the HTTP server binds to." }),
  METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 9464,
    description:
      "TCP port of the Prometheus metrics listener (GET /metrics), separate from the API in every RUN_MODE. 0 turns it off. Give each process on one machine its own.",
  }),
  METRICS_HOST: Type.String({
    default: "127.0.0.1",
    description:
      "Interface the metrics listener binds to. Loopback by default: only this machine reads the metrics; set 0.0.0.0 (behind a firewall) for a remote scraper.",
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: "^https?://[^\\s/]+(/[^\\s]*)?$",
      description:
        "Externally visible origin (e.g. https://shop.example.com). Used in the OpenAPI servers list, OAuth metadata and logs. Defaults to http://localhost:PORT.",
    }),
  ),
  RUN_MODE: Type.Union([Type.Literal("all"), Type.Literal("api"), Type.Literal("worker")], {
    default: "all",
    description: "all = HTTP API and webhook worker in one process; api or worker to scale them separately.",
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: "^postgres(ql)?://",
      description: "PostgreSQL server URL. Unset: the embedded PostgreSQL (PGlite) persisted under DATA_DIR.",
    }),
  ),
  DATABASE_SCHEMA: Type.String({
    default: "public",
    pattern: "^[a-z_][a-z0-9_]{0,62}$",
    description: "PostgreSQL schema holding the tables (created if missing).",
  }),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: "Connections in the pool when DATABASE_URL is set.",
  }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 5000,
    description:
      "Longest wait for a PostgreSQL connection (opening one, or a free one in the pool) when DATABASE_URL is set; past it the request answers 503.",
  }),
  DATA_DIR: Type.String({
    default: "./data",
    description: "Directory of the embedded database and generated local secrets.",
  }),
  EMBEDDED_SHARED_BUFFERS_MB: Type.Integer({
    minimum: 1,
    maximum: 4096,
    default: 16,
    description:
      "PostgreSQL's shared_buffers of the embedded database, in MB. Its WebAssembly memory holds them and never shrinks, so every MB read through them stays resident (128 MB, PostgreSQL's default, cost ~130 MB of RSS); the operating system still caches the data files. Raise it for a large embedded store.",
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: "^rediss?://",
      description:
        "Redis URL. Set it when more than one instance runs: rate limits and credential throttles are then shared.",
    }),
  ),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 50,
    description:
      "Time-out of each Redis call. A call that fails or times out switches rate limits and throttles to per-instance memory until Redis answers again.",
  }),
  LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l)),
    { default: "info", description: "pino log level." },
  ),
  DEMO_SEED: Type.Optional(
    Type.Boolean({
      description:
        "Create the demo merchant, store and data on first start. Default: true on the embedded database, false on DATABASE_URL.",
    }),
  ),
  SESSION_TTL_SECONDS: Type.Integer({
    minimum: 60,
    default: 7 * 24 * 3600,
    description: "Lifetime of a dashboard session cookie.",
  }),
  LOGIN_MAX_FAILURES: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      "Failed logins allowed per e-mail address (5x that per client IP) within LOGIN_FAILURE_WINDOW_SECONDS from browsers that have not signed in to the account before; a browser that has (device cookie) gets this many of its own instead, and is not held up by the e-mail's or the IP's lockout.",
  }),
  LOGIN_FAILURE_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    default: 900,
    description: "Window of the login failure throttle.",
  }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 180,
    description:
      "Accepted requests per installation (Admin API) and per key pair (developer API) in any 60 seconds.",
  }),
  ACCESS_TOKEN_TTL_SECONDS: Type.Integer({
    minimum: 1,
    default: 3600,
    description: "Lifetime of an app access token.",
  }),
  ACCESS_TOKEN_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 5000,
    default: 500,
    description:
      "How long an instance may trust an access token it verified, without reading it again; every revocation and uninstall answers this much later, so no instance accepts the token after that answer. 0 reads every time.",
  }),
  REFRESH_TOKEN_TTL_SECONDS: Type.Integer({
    minimum: 1,
    default: 30 * 24 * 3600,
    description: "Lifetime of an app refresh token.",
  }),
  REFRESH_REPLAY_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: 600,
    description:
      "How long after a refresh the same refresh token, presented again by the same client for the same store, is answered with the same pair instead of revoking the family, as long as that pair is unused (its answer was lost). 0 turns replays off.",
  }),
  AUTH_CODE_TTL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 600,
    default: 600,
    description: "Lifetime of an OAuth authorization code (at most 10 minutes).",
  }),
  CREDENTIAL_MAX_FAILURES: Type.Integer({
    minimum: 1,
    default: 20,
    description:
      "Failed client-secret or API-key-secret checks allowed per client id / key id (5x that per IP) within CREDENTIAL_FAILURE_WINDOW_SECONDS. The per-IP bound refuses only wrong credentials, never a right one.",
  }),
  CREDENTIAL_FAILURE_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    default: 900,
    description: "Window of the credential failure throttle.",
  }),
  SECRETS_KEY: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z0-9+/=_-]{43,88}$",
      description:
        "32-byte key (base64 or base64url) encrypting webhook subscription secrets (AES-256-GCM); keys derived from it (HKDF) sign dashboard device cookies, so every instance must share it. Unset on the embedded default: generated once into DATA_DIR/secrets.key. Required with DATABASE_URL.",
    }),
  ),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 60_000,
    description: "Delay before the 2nd delivery attempt; it doubles for each later attempt.",
  }),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 8,
    default: 8,
    description: "Attempts per delivery.",
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: "Per-attempt time-out of a delivery.",
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 32,
    description: "Deliveries in flight per worker process.",
  }),
  WEBHOOK_PER_TARGET_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 4,
    description:
      "Deliveries in flight per target host per worker, so one slow receiver cannot hold the others up.",
  }),
  WEBHOOK_LEASE_MS: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description:
      "How long a worker owns a claimed delivery; after that a crashed worker's delivery is taken again.",
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Boolean({
    default: false,
    description:
      "Allow webhook targets on loopback/private/link-local addresses, and plain http on localhost (local development and tests only; the start log warns while it is on).",
  }),
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_EVENT: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      "Active webhook subscriptions one installation may hold for one event (each at another URL): how many signed POSTs one event, real or test, can become for one installation.",
  }),
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_INSTALLATION: Type.Integer({
    minimum: 1,
    default: 100,
    description: "Active webhook subscriptions one installation may hold in all.",
  }),
  WEBHOOK_TEST_DELIVERIES_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 60,
    description:
      "Deliveries and listen-stream items that test events (POST /webhooks/test) may produce per app in any 60 seconds, counted when each test event is accepted (its subscriptions of the event plus its live listen sessions carrying it); past it, 429 with Retry-After.",
  }),
  WEBHOOK_REDELIVERIES_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 60,
    description:
      "Redeliveries per app in any 60 seconds, the dashboard's and the Admin API's together; past it, 429 with Retry-After.",
  }),
  WEBHOOK_SECRET_OVERLAP_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 86_400,
    default: 86_400,
    description:
      "After a subscription's secret is rotated (POST /webhooks/{id}/secret), deliveries' webhook-signature carries a signature with the previous secret too for this long, so receivers can switch without losing one; x-webhook-signature uses the new secret at once. 0 ends the old secret at once.",
  }),
  WEBHOOK_DISABLE_AFTER_SECONDS: Type.Number({
    exclusiveMinimum: 0,
    default: 432_000,
    description:
      "A webhook subscription whose delivery attempts have all failed for this long, measured from the first failure of an unbroken run of failures (any success resets it), is disabled: nothing is sent to it, and each event it would have received is recorded as a skipped delivery, until the app enables it again. Default 5 days; any positive number of seconds.",
  }),
  SHOP_REDACT_DELAY_SECONDS: Type.Integer({
    minimum: 0,
    default: 172_800,
    description:
      "How long after an app is uninstalled from a store it is sent shop.redact at its privacy endpoint (once; not if it was installed there again meanwhile). Default 48 hours. Applies to uninstalls made after a change.",
  }),
  WEBHOOK_LOG_RETENTION_DAYS: Type.Integer({
    minimum: 0,
    default: 30,
    description:
      "Finished (delivered, failed, cancelled) webhook deliveries with their attempt log are deleted this many days after they finished; 0 keeps them for ever. Events follow EVENT_RETENTION_DAYS. Listen sessions (what each streamed) are kept this long after they were last connected, at most EVENT_RETENTION_DAYS.",
  }),
  EVENT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description:
      "Events stay readable through the events API (GET /api/v1/apps/api/events) this many days after they were created, and longer while a delivery of them is pending.",
  }),
  LISTEN_MAX_STREAMS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description:
      "Listen sessions (the CLI's `listen`) an installation may have live at once, over every process, and open streams it may hold on one API process; past it a new one answers 429 with Retry-After.",
  }),
  LISTEN_SESSION_IDLE_SECONDS: Type.Integer({
    minimum: 30,
    maximum: 86_400,
    default: 600,
    description:
      "How long a disconnected listen session can still be resumed (Last-Event-ID); after that it has ended and `listen` starts a new one.",
  }),
  EXPORT_MAX_CONCURRENT: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 2,
    description:
      "Bulk exports (GET .../export/{resource}) one installation or key pair may run at once, over every API process; past it a new one answers 429 with Retry-After.",
  }),
  EXPORT_MAX_PER_STORE: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 4,
    description:
      "Bulk exports one store may run at once, over all its installations and key pairs and every API process; past it 429 with Retry-After.",
  }),
  EXPORT_MAX_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 8,
    description:
      "Bulk exports the stores of one merchant account may run at once, over every API process; past it 429 with Retry-After.",
  }),
  EXPORT_MAX_PER_PROCESS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 16,
    description:
      "Bulk exports one API process runs at once, whoever asks; past it 429 with Retry-After (a load balancer's next try may reach another process). Each holds at most one batch (EXPORT_BATCH_CHARS) while its client is slow.",
  }),
  EXPORT_BATCH_ROWS: Type.Integer({
    minimum: 100,
    maximum: 10_000,
    default: 2000,
    description:
      "Most records a bulk export reads per statement (orders: half as many, with their line items); fewer when records are large (EXPORT_BATCH_CHARS).",
  }),
  EXPORT_BATCH_CHARS: Type.Integer({
    minimum: 65_536,
    maximum: 16_777_216,
    default: 1_048_576,
    description:
      "About how many characters of JSON Lines one batch of a bulk export holds: the rows of the next batch follow the size of the last one's records. A client that stops reading holds one batch; nothing more is read for it.",
  }),
  EXPORT_IDLE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 60,
    description:
      "A bulk export whose client takes nothing (not one batch) for this long is cut, freeing its slots; the client resumes with its snapshot.",
  }),
  CREDENTIAL_RETENTION_GRACE_SECONDS: Type.Integer({
    minimum: 0,
    default: 86_400,
    description:
      "Expired authorization codes and app tokens, and revoked token families, are deleted this long after they expired or were revoked (until then a replayed one is still recognised and answered as such).",
  }),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: "^smtps?://[^\\s]+$",
      maxLength: 2000,
      description:
        "SMTP server the platform's e-mail goes through (password resets, e-mail confirmations, staff invitations): smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465. Unset: nothing is sent; every message is kept in the local mail outbox, which the operator opens at the link the start log prints.",
    }),
  ),
  MAIL_FROM: Type.String({
    default: "Merchant Platform <no-reply@localhost>",
    minLength: 3,
    maxLength: 320,
    description: "Sender (From) of the platform's e-mail, e.g. `Acme Commerce <no-reply@acme.example>`.",
  }),
  MAIL_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 10,
    description:
      "Attempts per e-mail while the SMTP server refuses it or does not answer; after the last one the message is marked failed and logged.",
  }),
  MAIL_RETRY_BASE_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 15_000,
    description:
      "Wait before an e-mail's 2nd attempt; it doubles for each later attempt, at most an hour (the default's 10 attempts span about 2.5 hours).",
  }),
  MAIL_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: "Longest wait for each step of an SMTP conversation (connecting, greeting, each reply).",
  }),
  MAIL_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 365,
    default: 7,
    description:
      "Sent and failed e-mails are deleted from the mail outbox this many days after they were written (messages still waiting to be sent are kept).",
  }),
  BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 1_048_576,
    description: "Largest accepted request body.",
  }),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description: "Trust X-Forwarded-* headers (set when behind a reverse proxy).",
  }),
});

export type Config = Static<typeof ConfigSchema> & { PUBLIC_BASE_URL: string; DEMO_SEED: boolean };

export class ConfigError extends Error {}

/**
 * How long after its claim a delivery may still be attempted: its attempt (up to the time-out)
 * and the recording of its outcome (a tenth of the lease) must end inside the lease, or another
 * worker could take it while it is in flight. The delivery worker gives back claims that waited
 * longer; the configuration refuses settings that leave less than MIN_ATTEMPT_START_WINDOW_MS.
 */
export function attemptStartWindowMs(leaseMs: number, timeoutMs: number): number {
  return leaseMs - timeoutMs - leaseMs / 10;
}
export const MIN_ATTEMPT_START_WINDOW_MS = 500;

/** Parses and validates the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(ConfigSchema.properties);
  const input: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });
  const validate = ajv.compile(ConfigSchema);
  if (!validate(input)) {
    const lines = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, "") || String(e.params.missingProperty ?? "");
      const description = (ConfigSchema.properties as Record<string, { description?: string }>)[name]
        ?.description;
      return `  ${name}: ${e.message}${description ? ` (${description})` : ""}`;
    });
    throw new ConfigError(`Invalid configuration:\n${[...new Set(lines)].join("\n")}`);
  }
  const parsed = input as unknown as Static<typeof ConfigSchema>;
  const window = attemptStartWindowMs(parsed.WEBHOOK_LEASE_MS, parsed.WEBHOOK_TIMEOUT_MS);
  if (window < MIN_ATTEMPT_START_WINDOW_MS)
    throw new ConfigError(
      `Invalid configuration:\n  WEBHOOK_LEASE_MS: must exceed WEBHOOK_TIMEOUT_MS by a tenth of itself plus ${MIN_ATTEMPT_START_WINDOW_MS} ms (got ${parsed.WEBHOOK_LEASE_MS} and ${parsed.WEBHOOK_TIMEOUT_MS}): a worker starts an attempt only while it can finish and record it inside its lease, so a shorter lease never delivers anything`,
    );
  return {
    ...parsed,
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ""),
    DEMO_SEED: parsed.DEMO_SEED ?? parsed.DATABASE_URL === undefined,
  };
}
