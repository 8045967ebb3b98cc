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
  DATA_DIR: Type.String({
    default: "./data",
    description: "Directory of the embedded database and generated local secrets.",
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: "^rediss?://",
      description:
        "Redis URL. Set it when more than one instance runs: rate limits and credential throttles are then shared.",
    }),
  ),
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
      "Failed logins allowed per e-mail address and per client IP within LOGIN_FAILURE_WINDOW_SECONDS.",
  }),
  LOGIN_FAILURE_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    default: 900,
    description: "Window of the login failure throttle.",
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
  return {
    ...parsed,
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ""),
    DEMO_SEED: parsed.DEMO_SEED ?? parsed.DATABASE_URL === undefined,
  };
}
