import type { Logger } from "pino";
import pino from "pino";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { createMailRepo } from "./mail-repo.ts";
import { createMailWorker } from "./mail-worker.ts";
import { createMailer, type Mailer } from "./mailer.ts";
import { outboxRoutes } from "./outbox-routes.ts";
import { createOutboxTransport, createSmtpTransport, type MailTransport } from "./transports.ts";

/**
 * The mail component, wired once (platform.ts): `mailer` is what services take as a dependency;
 * the worker drains the outbox (main.ts starts it where the webhook worker runs); `transport`
 * says where messages go (SMTP_URL set: that server; unset: the local outbox).
 */
export function createMailModule(deps: {
  db: Db;
  config: Pick<
    Config,
    | "SMTP_URL"
    | "MAIL_FROM"
    | "MAIL_MAX_ATTEMPTS"
    | "MAIL_RETRY_BASE_MS"
    | "MAIL_TIMEOUT_MS"
    | "MAIL_RETENTION_DAYS"
  >;
  clock: Clock;
  logger?: Logger;
  /** Another transport than the configuration's (a test's failing one). */
  transport?: MailTransport;
  /** The key that opens the local outbox (derived from the secrets key: stable across restarts). */
  outboxKey: string;
}) {
  const { config } = deps;
  const repo = createMailRepo(deps.db);
  const transport =
    deps.transport ??
    (config.SMTP_URL
      ? createSmtpTransport({
          url: config.SMTP_URL,
          from: config.MAIL_FROM,
          timeoutMs: config.MAIL_TIMEOUT_MS,
        })
      : createOutboxTransport());
  const worker = createMailWorker({
    repo,
    transport,
    clock: deps.clock,
    logger: deps.logger ?? pino({ level: "silent" }),
    options: {
      maxAttempts: config.MAIL_MAX_ATTEMPTS,
      retryBaseMs: config.MAIL_RETRY_BASE_MS,
      // An SMTP conversation is a handful of steps, each bounded by the time-out.
      leaseMs: Math.max(60_000, config.MAIL_TIMEOUT_MS * 8),
      pollMs: 1000,
      batch: 8,
      retentionDays: config.MAIL_RETENTION_DAYS,
    },
  });
  const mailer: Mailer = createMailer({ repo, clock: deps.clock, poke: worker.poke });
  const outboxKey = transport.kind === "outbox" ? deps.outboxKey : null;
  return {
    mailer,
    repo,
    worker,
    transport: transport.kind,
    /** The operator's link to the local outbox (null when mail goes to an SMTP server). */
    outboxUrl: (baseUrl: string) => (outboxKey ? `${baseUrl}/outbox#key=${outboxKey}` : null),
    routes: (secureCookies: boolean) => outboxRoutes({ key: outboxKey, repo, secureCookies }),
  };
}
export type MailModule = ReturnType<typeof createMailModule>;
