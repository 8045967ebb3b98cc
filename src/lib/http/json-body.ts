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
      else {
        // JSON can carry U+0000 only as the escape, so most bodies skip the walk.
        const field = /\\u0000/i.test(text) ? nulField(value) : null;
        if (field === null) done(null, value);
        else
          done(
            new AppError("VALIDATION_FAILED", {
              details: [{ field, message: "must not contain the NUL character (\\u0000)" }],
            }),
            undefined,
          );
      }
    });
  });
  app.addContentTypeParser("*", (_request, _payload, done) => {
    done(new AppError("UNSUPPORTED_MEDIA_TYPE"), undefined);
  });
}

/**
 * The path (`lineItems.0.note`) of the first string or key holding U+0000, which PostgreSQL text
 * cannot store; null when there is none. Iterative: a body may nest thousands of levels deep.
 */
function nulField(root: unknown): string | null {
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return path || "body";
    } else if (value && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes("\u0000")) return at;
        stack.push([child, at]);
      }
    }
  }
  return null;
}
