import pino, { type DestinationStream, type Logger } from "pino";

/** Credentials never reach the log. */
const REDACT = ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-api-secret"]'];

/** The fields of a request's line (lib/http/request-log.ts) that its message already says. */
const REQUEST_LINE_FIELDS = ["method", "path", "status", "ms", "reqId"] as const;

type Record_ = Record<string, unknown>;

/** A request's line: its message already holds the method, path, status and time. */
function isRequestLine(log: Record_): boolean {
  return typeof log.method === "string" && typeof log.path === "string" && typeof log.ms === "number";
}

/**
 * The process's logger: JSON lines for log pipelines, or, when stdout is a terminal (someone ran
 * `npm start` by hand), pino-pretty's readable records, loaded only then. In a terminal a request
 * is one line, `12:00:01.234 INFO: GET /api/v1/products 200 3.2 ms · <request id>`: the fields its
 * message already says are not printed again under it (the JSON lines keep them all).
 */
export async function createLogger(options: {
  level: string;
  pretty?: boolean | undefined;
  /** Where pretty records go (default standard output). */
  destination?: DestinationStream | undefined;
}): Promise<Logger> {
  const base = { level: options.level, redact: REDACT };
  if (!(options.pretty ?? process.stdout.isTTY)) return pino(base);
  const { default: pretty } = await import("pino-pretty");
  // pino-pretty leaves out a field whose prettifier answers undefined (its types say string).
  const hideOnRequestLine = (value: unknown, _key: string, log: object) =>
    (isRequestLine(log as Record_) ? undefined : JSON.stringify(value)) as string;
  return pino(
    base,
    pretty({
      // sync: the last records ("stopped") are written before process.exit.
      sync: true,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
      ...(options.destination ? { destination: options.destination } : {}),
      messageFormat: (log, messageKey) =>
        isRequestLine(log) && typeof log.reqId === "string"
          ? `${String(log[messageKey])} · ${log.reqId}`
          : String(log[messageKey] ?? ""),
      customPrettifiers: Object.fromEntries(REQUEST_LINE_FIELDS.map((key) => [key, hideOnRequestLine])),
    }),
  );
}
