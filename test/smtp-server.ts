import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { portIsFree, TEST_PORTS } from "./ports.ts";

/** A message as the test SMTP server received it: the envelope and the parsed message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
  raw: string;
}

/** A loopback port nothing listens on now, from TEST_PORTS.smtp up. */
export async function freeSmtpPort(): Promise<number> {
  for (let p = TEST_PORTS.smtp; p < TEST_PORTS.smtp + 500; p++) if (await portIsFree(p)) return p;
  throw new Error("no free port for the test SMTP server");
}

/**
 * A real SMTP server (nodemailer's smtp-server) on a loopback port, for the tests of the mail
 * component: plain SMTP with AUTH (user `mailer`, password `secret`), every message parsed
 * (mailparser). `refuse(code)` answers the next messages' DATA with that code (451: a temporary
 * failure) until `refuse(null)`.
 */
export async function startSmtpServer(options: { port?: number } = {}) {
  const port = options.port ?? (await freeSmtpPort());
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let refusal: number | null = null;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "mailer" && auth.password === "secret") callback(null, { user: "mailer" });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refusal !== null) {
          const error = new Error("Try again later") as Error & { responseCode: number };
          error.responseCode = refusal;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              raw,
            });
            for (const w of waiters.splice(0)) w();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    port,
    url: `smtp://mailer:secret@127.0.0.1:${port}`,
    received,
    refuse(code: number | null) {
      refusal = code;
    },
    /** Resolves once `count` messages have arrived (fails after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedMail[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} messages, received ${received.length}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
