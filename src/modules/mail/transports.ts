import nodemailer from "nodemailer";

/** A message as a transport sends it (a row of the mail outbox). */
export interface OutgoingMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Where the worker hands messages. `deliver` resolves when the message was accepted, and rejects
 * with the reason otherwise (the worker retries, see mail-worker.ts).
 */
export interface MailTransport {
  /** `smtp`: sent to an SMTP server. `outbox`: kept in the local outbox for the operator to read. */
  readonly kind: "smtp" | "outbox";
  deliver(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer: `smtp://user:pass@host:587` (STARTTLS when the server offers it) or
 * `smtps://...:465` (TLS from the first byte); nodemailer's own URL options are accepted as query
 * parameters. Every step is bounded by `timeoutMs`, so a server that stops answering frees the
 * worker's slot. The Message-ID is the outbox row's: a message sent twice (the worker died after
 * the server took it, before it was recorded) carries the same id both times.
 */
export function createSmtpTransport(options: {
  url: string;
  from: string;
  timeoutMs: number;
}): MailTransport {
  const transporter = nodemailer.createTransport(options.url, {
    from: options.from,
  });
  // The URL's own options set, the time-outs are ours (nodemailer's defaults wait minutes).
  Object.assign(transporter.options, {
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  const host = (() => {
    try {
      return new URL(options.url).hostname || "localhost";
    } catch {
      return "localhost";
    }
  })();
  return {
    kind: "smtp",
    async deliver(mail) {
      await transporter.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.id}@${host}>`,
      });
    },
    close() {
      transporter.close();
    },
  };
}

/**
 * The embedded default: nothing leaves the machine. A message "delivered" stays in the outbox
 * (mail_messages), which the operator opens at /outbox (outbox-routes.ts); the start log prints
 * the link.
 */
export function createOutboxTransport(): MailTransport {
  return {
    kind: "outbox",
    async deliver() {},
    close() {},
  };
}
