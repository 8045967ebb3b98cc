import type { FastifyInstance } from "fastify";

/**
 * One line per request at `info`: method, path, status, time and request id, as a person reading
 * the log wants them. What Fastify logs by default (the request's headers, host, remote address
 * and port on an "incoming request" line, then a second line on completion) goes to `debug`. The
 * query string is left out at `info`: it can carry a search a merchant typed or a cursor.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    request.log.debug({ req: request }, "incoming request");
  });
  app.addHook("onResponse", async (request, reply) => {
    const path = request.url.split("?")[0];
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log.info(
      { method: request.method, path, status: reply.statusCode, ms },
      `${request.method} ${path} ${reply.statusCode} ${ms} ms`,
    );
  });
}
