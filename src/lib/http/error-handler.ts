import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isDatabaseUnavailable } from "../availability.ts";
import { AppError, ERROR_CODES, type ErrorCode } from "../errors.ts";

/** The failure envelope of an error. */
function envelopeOf(error: AppError, requestId: string) {
  return {
    success: false,
    message: error.message,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details !== undefined ? { details: error.details } : {}),
      requestId,
    },
  };
}

/** Writes the failure envelope. The only place that turns an error into a response. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.status).send(envelopeOf(error, reply.request.id));
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route or hook
 * runs (a NUL, DEL or other control character in a header, a malformed request line or
 * Content-Length, headers over the size limit) gets the envelope too, `400 BAD_REQUEST`, instead of
 * Fastify's own `{"error":"Bad Request","message":"Client Error"}`. There is no request or reply
 * object yet: the answer is written to the socket, which is then closed, as Node does.
 */
export function answerUnreadableRequest(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Duplex,
): void {
  // The client is gone: nothing to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const requestId = randomUUID();
  const appError = new AppError("BAD_REQUEST", {
    message:
      error.code === "HPE_HEADER_OVERFLOW"
        ? "The request's headers are too large."
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "The request did not arrive in time."
          : "The request is not valid HTTP: its request line or a header is malformed, or holds a character HTTP does not allow.",
  });
  this.log.info({ code: error.code, requestId, status: appError.status }, "unreadable request rejected");
  // As Node's own handler: never write into a response already under way on this connection.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(envelopeOf(appError, requestId));
    socket.write(
      `HTTP/1.1 ${appError.status} Bad Request\r\n` +
        "content-type: application/json; charset=utf-8\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        "connection: close\r\n\r\n" +
        body,
    );
  }
  socket.destroy(error);
}

type ValidationIssue = {
  instancePath: string;
  message?: string | undefined;
  keyword: string;
  params: Record<string, unknown>;
  /** With Ajv's `verbose`: the schema holding the failed keyword. */
  parentSchema?: { "x-hint"?: unknown } | undefined;
};

/** Words for a value that failed a pattern or a format: never the regular expression itself. */
function shapeMessage(issue: ValidationIssue): string {
  const hint = issue.parentSchema?.["x-hint"];
  if (typeof hint === "string") return `must be ${hint}`;
  if (issue.keyword === "format") return `must be a valid ${String(issue.params.format)}`;
  return "is not in the expected format";
}

/** Ajv issues -> [{field, message}] naming the field as the client wrote it (`perPage`, `lineItems.0.quantity`). */
export function validationDetails(issues: ValidationIssue[], context?: string) {
  const out: Array<{ field: string; message: string }> = [];
  for (const issue of issues) {
    let path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
    let message = issue.message ?? "is invalid";
    if (issue.keyword === "required") {
      path = [path, String(issue.params.missingProperty)].filter(Boolean).join(".");
      message = "is required";
    } else if (issue.keyword === "additionalProperties") {
      path = [path, String(issue.params.additionalProperty)].filter(Boolean).join(".");
      message = "is not a known field";
    } else if (issue.keyword === "pattern" || issue.keyword === "format") {
      message = shapeMessage(issue);
    }
    const field = path || (context === "body" ? "body" : (context ?? "request"));
    if (!out.some((d) => d.field === field && d.message === message)) out.push({ field, message });
  }
  return out.slice(0, 20);
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "BAD_REQUEST",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_EMPTY_JSON_BODY: "BAD_REQUEST",
  FST_ERR_CTP_INVALID_JSON_BODY: "BAD_REQUEST",
};

/**
 * Retry-After of a 503 while the database is unavailable. A restart or failover takes seconds;
 * clients that honour it come back soon without hammering a server that is starting.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

// PostgreSQL SQLSTATEs that a request can provoke despite validation (e.g. two racing inserts).
const PG_CODES: Record<string, ErrorCode> = { "23505": "CONFLICT", "40001": "CONFLICT", "40P01": "CONFLICT" };

export function toAppError(error: FastifyError & { validationContext?: string }): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    return new AppError("VALIDATION_FAILED", {
      details: validationDetails(error.validation as ValidationIssue[], error.validationContext),
    });
  }
  const mapped = (error.code && FASTIFY_CODES[error.code]) || undefined;
  if (mapped === "BAD_REQUEST" && /JSON/i.test(error.code ?? "")) {
    return new AppError("BAD_REQUEST", { message: "The request body is not valid JSON." });
  }
  if (mapped) return new AppError(mapped);
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError("BAD_REQUEST", { message: "The request body is not valid JSON." });
  }
  const pgCode = (error as { code?: string }).code;
  if (pgCode && PG_CODES[pgCode]) return new AppError(PG_CODES[pgCode]);
  // 22021: text PostgreSQL cannot store (U+0000) that arrived some way other than a JSON body.
  if (pgCode === "22021")
    return new AppError("BAD_REQUEST", {
      message: "The request contains a character that cannot be stored.",
    });
  if (isDatabaseUnavailable(error))
    return new AppError("SERVICE_UNAVAILABLE", {
      headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  const status = error.statusCode ?? 500;
  if (status === 404) return new AppError("NOT_FOUND");
  if (status === 413) return new AppError("PAYLOAD_TOO_LARGE");
  if (status === 415) return new AppError("UNSUPPORTED_MEDIA_TYPE");
  if (status >= 400 && status < 500) return new AppError("BAD_REQUEST");
  return new AppError("INTERNAL");
}

/**
 * RFC 9112 section 3.2: an HTTP/1.1 request without a Host header, and any request with more than
 * one, is a 400. Node's own check (`requireHostHeader`, turned off in app.ts) answers the first
 * with a bare 400 of its own and lets the second through; this answers both with the envelope.
 */
export function installHostRule(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    const raw = request.raw.rawHeaders;
    let hosts = 0;
    for (let i = 0; i < raw.length; i += 2)
      if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") hosts++;
    if (hosts > 1 || (hosts === 0 && request.raw.httpVersion === "1.1"))
      throw new AppError("BAD_REQUEST", {
        message: hosts > 1 ? "The request has more than one Host header." : "The request has no Host header.",
      });
  });
}

/**
 * `notFoundPage`: answers a request no route knows with a page instead of the envelope when it
 * returns a reply (the dashboard's, for a person who typed an address: app.ts), or declines with
 * undefined (every API path, and clients that do not ask for HTML).
 */
export function installErrorHandling(
  app: FastifyInstance,
  options: { notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined } = {},
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code === "SERVICE_UNAVAILABLE") {
      // Expected while a dependency restarts, and one per request: no stack trace each time.
      request.log.warn(
        { code: (error as { code?: string }).code, error: error.message },
        "dependency unavailable",
      );
    } else if (ERROR_CODES[appError.code].status >= 500) {
      request.log.error({ err: error }, "request failed");
    } else {
      request.log.info({ code: appError.code, status: appError.status }, "request rejected");
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler(
    (request, reply) =>
      options.notFoundPage?.(request, reply) ??
      sendError(
        reply,
        new AppError("NOT_FOUND", {
          message: `No route for ${request.method} ${request.url.split("?")[0]}.`,
        }),
      ),
  );
}
