import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * One line per request at `info`: method, path, status, time and request id (the logger's
 * `reqId`), as a person reading the log wants them. What Fastify logs by default (the request's
 * headers, host, remote address and port on an "incoming request" line, then a second line on
 * completion) goes to `debug`. The query string is left out: it can carry a search a merchant
 * typed or a cursor. Passed to Fastify as its `logController`.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const path = request.url.split("?")[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const line = { method: request.method, path, status: reply.statusCode, ms };
    const message = `${request.method} ${path} ${reply.statusCode} ${ms} ms`;
    if (error) reply.log.error({ ...line, err: error }, message);
    else reply.log.info(line, message);
  }
}
