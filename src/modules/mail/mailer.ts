import type { Executor } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { newId } from "../../lib/ids.ts";
import type { MailRepo } from "./mail-repo.ts";

/**
 * One e-mail as the rest of the code hands it over: both bodies (mail clients that show HTML and
 * those that do not), a subject, one recipient. templates.ts composes the bodies.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What the message is (`password_reset`, `staff_invitation`, ...): shown in the outbox page and the logs. */
  kind?: string;
}

/**
 * The mail component's whole interface for the rest of the platform. `send` puts the message in
 * the mail outbox (a row of mail_messages) and returns at once; the worker sends it after the
 * commit, with retries. Given the caller's transaction `tx`, the message is written in it, so it
 * goes out only if the transaction commits (an invitation whose insert rolled back is never sent),
 * and nothing talks to an SMTP server while a transaction is open.
 */
export interface Mailer {
  send(message: MailMessage, tx?: Executor): Promise<{ id: string }>;
}

/** Bounds of a message: a programming error past them (the platform writes every message itself). */
export const MAIL_LIMITS = {
  address: 320,
  subject: 200,
  body: 256 * 1024,
  kind: 40,
} as const;

// An address as the platform's contracts accept one (fields.ts Email), checked again here because
// a message goes into SMTP's envelope: no spaces, no line breaks, no angle brackets.
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;

export function createMailer(deps: {
  repo: Pick<MailRepo, "insert">;
  clock: Clock;
  /** Tells this process's worker a message is waiting (it polls too: other processes' messages). */
  poke?: () => void;
}): Mailer {
  return {
    async send(message, tx) {
      const to = message.to.trim();
      if (!ADDRESS.test(to) || to.length > MAIL_LIMITS.address)
        throw new Error(`mail: not a deliverable address: ${JSON.stringify(to.slice(0, 80))}`);
      // A header never carries a line break (header injection); long subjects are cut, not refused.
      const subject = message.subject
        .replace(/[\r\n]+/g, " ")
        .trim()
        .slice(0, MAIL_LIMITS.subject);
      if (!subject) throw new Error("mail: a message needs a subject");
      if (message.text.length > MAIL_LIMITS.body || message.html.length > MAIL_LIMITS.body)
        throw new Error(`mail: a body is over ${MAIL_LIMITS.body} characters`);
      const kind = (message.kind ?? "message").slice(0, MAIL_LIMITS.kind);
      const now = deps.clock.now();
      const id = newId("mailMessage");
      await deps.repo.insert(
        {
          id,
          kind,
          to_address: to,
          subject,
          text_body: message.text,
          html_body: message.html,
          created_at: now,
          next_attempt_at: now,
        },
        tx,
      );
      // Inside a transaction the row is not visible yet: the worker's next poll finds it.
      if (!tx) deps.poke?.();
      return { id };
    },
  };
}
