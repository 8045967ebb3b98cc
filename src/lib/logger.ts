import pino, { type Logger } from "pino";

/** Credentials never reach the log. */
const REDACT = ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-api-secret"]'];

/**
 * The process's logger: JSON lines for log pipelines, or, when stdout is a terminal (someone ran
 * `npm start` by hand), pino-pretty's one readable line per record. pino-pretty is loaded only then.
 */
export async function createLogger(options: {
  level: string;
  pretty?: boolean | undefined;
}): Promise<Logger> {
  const base = { level: options.level, redact: REDACT };
  if (!(options.pretty ?? process.stdout.isTTY)) return pino(base);
  const { default: pretty } = await import("pino-pretty");
  // sync: the last records ("stopped") are written before process.exit.
  return pino(base, pretty({ sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }));
}
