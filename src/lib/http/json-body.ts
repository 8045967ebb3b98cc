import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";

/**
 * How much of a refused request's body is read (and discarded) before its answer goes out, and for
 * how long at most. A client that is still sending when the server closes the connection gets a
 * reset (EPIPE) instead of the 413 or 401 it should read; past these bounds it does.
 */
export const UNREAD_BODY_DRAIN = { bytes: 64 * 1024 * 1024, ms: 10_000 } as const;

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
  // An answer given before the body was read (too large, wrong type, no credentials) waits until
  // the client has finished sending it: Fastify closes such a connection after the answer, and a
  // close with unread data in the socket is a reset the client sees instead of the answer.
  app.addHook("onSend", async (request, _reply, payload) => {
    if (!request.raw.complete) await drain(request.raw, UNREAD_BODY_DRAIN);
    return payload;
  });
}

/** Reads and discards the rest of a request's body, up to `bytes` or `ms`, whichever comes first. */
function drain(raw: IncomingMessage, limits: { bytes: number; ms: number }): Promise<void> {
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off("data", onData);
      raw.off("end", done);
      raw.off("close", done);
      raw.off("error", done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.bytes) done();
    };
    const timer = setTimeout(done, limits.ms);
    raw.on("data", onData);
    raw.once("end", done);
    raw.once("close", done);
    raw.once("error", done);
    raw.resume();
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
