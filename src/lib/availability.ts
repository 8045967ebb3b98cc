/**
 * Whether an error means "the database cannot be reached or is not accepting work right now" —
 * a condition that passes by itself (server stopped, restarting, starting up, failing over, out of
 * connection slots) — as opposed to a fault of the request or of the code. The one classifier
 * behind the HTTP error handler's 503, the start-up wait and the delivery worker's back-off.
 */

/** Socket and DNS failures of the connection (Node errno codes; pg passes them through). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs outside class 08 (connection exception) that mean the same for a client:
 * 57P01 admin_shutdown (fast shutdown, pg_terminate_backend), 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, recovering, shutting down), 57P05 idle_session_timeout,
 * 53300 too_many_connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "57P05", "53300"]);

/**
 * Messages of node-postgres errors that carry no code: the server closed the socket mid-query
 * ("Connection terminated unexpectedly"), the connect time-out fired ("Connection terminated due to
 * connection timeout"), the pool's acquire time-out, and a client reused after its connection broke.
 */
const CLIENT_MESSAGES =
  /^Connection terminated\b|^timeout exceeded when trying to connect$|encountered a connection error and is not queryable/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 3) return false;
  const { code, syscall, message, errors, cause } = error as {
    code?: unknown;
    syscall?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code)) return true;
    // A Unix-socket URL whose server is down: the socket file is gone.
    if (code === "ENOENT" && syscall === "connect") return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  }
  if (typeof code !== "string" && typeof message === "string" && CLIENT_MESSAGES.test(message)) return true;
  // Node reports a refused connection to every address of a host as an AggregateError.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isDatabaseUnavailable(e, depth + 1)))
    return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}
