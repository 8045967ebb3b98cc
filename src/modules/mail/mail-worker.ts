import type { Logger } from "pino";
import { backoffDelayMs } from "../../lib/backoff.ts";
import type { Clock } from "../../lib/clock.ts";
import { createPeriodicTask } from "../../lib/periodic-task.ts";
import type { MailRepo } from "./mail-repo.ts";
import type { MailTransport } from "./transports.ts";

export interface MailWorkerOptions {
  maxAttempts: number;
  retryBaseMs: number;
  /** A claim's lease: longer than an attempt can take (the transport's time-out bounds each step). */
  leaseMs: number;
  pollMs: number;
  /** Messages sent at once. */
  batch: number;
  retentionDays: number;
}

/** Longest wait between two attempts of one message. */
const MAX_RETRY_MS = 3_600_000;

/**
 * Drains the mail outbox: claims due messages, hands them to the transport outside any
 * transaction, and records the outcome. A failure is tried again with exponential back-off
 * (MAIL_RETRY_BASE_MS doubling, at most an hour) until MAIL_MAX_ATTEMPTS; then the message is
 * `failed` and logged. At least once: a worker that dies after the server accepted a message and
 * before it was recorded sends it again when its lease ends (with the same Message-ID).
 */
export function createMailWorker(deps: {
  repo: Pick<MailRepo, "claim" | "markSent" | "markFailed" | "prune">;
  transport: MailTransport;
  clock: Clock;
  logger: Pick<Logger, "info" | "warn" | "error">;
  options: MailWorkerOptions;
}) {
  const { repo, transport, clock, logger, options } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;
  let again = false;
  const retention = createPeriodicTask({
    everyMs: 3_600_000,
    run: (now) => repo.prune(new Date(now.getTime() - options.retentionDays * 86_400_000)),
    onResult: (deleted) => {
      if (deleted) logger.info({ deleted }, "mail outbox: old messages deleted");
    },
    onError: (error) => logger.warn({ err: error }, "mail outbox: retention failed; tried again later"),
  });

  async function attempt(mail: Awaited<ReturnType<MailRepo["claim"]>>[number]) {
    try {
      await transport.deliver({
        id: mail.id,
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
      });
      if (!(await repo.markSent(mail.id, mail.attempts, clock.now())))
        logger.warn({ mail: mail.id }, "mail sent after its claim lapsed; it may have been sent twice");
    } catch (error) {
      // The server's answer, without the message: enough to see why, nothing of the body.
      const reason = String((error as Error)?.message ?? error).slice(0, 500);
      const last = mail.attempts >= options.maxAttempts;
      const retryAt = last
        ? null
        : new Date(
            clock.now().getTime() +
              backoffDelayMs(mail.attempts, { firstMs: options.retryBaseMs, maxMs: MAX_RETRY_MS }),
          );
      await repo.markFailed(mail.id, mail.attempts, reason, retryAt);
      const fields = { mail: mail.id, kind: mail.kind, attempt: mail.attempts, reason };
      if (last) logger.error(fields, "mail could not be sent; gave up");
      else logger.warn({ ...fields, retryAt }, "mail not sent; will retry");
    }
  }

  /** One round: claims what is due and attempts it. Answers how many were attempted. */
  async function round(): Promise<number> {
    const now = clock.now();
    retention.due(now);
    const due = await repo.claim(now, options.leaseMs, options.batch);
    await Promise.all(due.map(attempt));
    return due.length;
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref?.();
  }

  function tick() {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = round();
    running
      .catch((error) => {
        logger.warn({ err: error }, "mail outbox: a round failed; trying again");
        return 0;
      })
      .then((attempted) => {
        running = null;
        // A full batch: there may be more waiting.
        schedule(again || attempted === options.batch ? 0 : options.pollMs);
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    /** A message is waiting: look now rather than at the next poll. */
    poke() {
      if (stopped) return;
      if (running) again = true;
      else schedule(0);
    },
    /**
     * Sends everything due now, round after round, and answers how many attempts it made (the
     * tests and the CLI; the running worker does the same on its own).
     */
    async drain(): Promise<number> {
      let total = 0;
      for (;;) {
        while (running) await running.catch(() => 0);
        const attempted = await round();
        total += attempted;
        if (attempted === 0) return total;
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      while (running) await running.catch(() => 0);
      await retention.idle();
      transport.close();
    },
  };
}
export type MailWorker = ReturnType<typeof createMailWorker>;
