import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";

/**
 * JSON is the only body type. An empty body with the JSON content type is accepted as "no body",
 * so body-less POST and DELETE requests can still carry `Content-Type: application/json`
 * (which the dashboard requires of every state-changing request, as a CSRF guard).
 */
export function installJsonBody(app: FastifyInstance): void {
  const defaultParser = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    defaultParser(request, text, (error, value) => {
      if (error)
        done(new AppError("BAD_REQUEST", { message: "The request body is not valid JSON." }), undefined);
      else done(null, value);
    });
  });
  app.addContentTypeParser("*", (_request, _payload, done) => {
    done(new AppError("UNSUPPORTED_MEDIA_TYPE"), undefined);
  });
}
