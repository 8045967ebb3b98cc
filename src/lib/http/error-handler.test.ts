import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FastifyError } from "fastify";
import { toAppError } from "./error-handler.ts";

/** A database error as pg and PGlite raise it: SQLSTATE in `code`, server text in `message`. */
function pgError(code: string, message: string): FastifyError {
  return Object.assign(new Error(message), { code }) as unknown as FastifyError;
}

describe("toAppError", () => {
  it("answers input PostgreSQL cannot store (22021) with 400, without the server's text", () => {
    const e = toAppError(pgError("22021", 'invalid byte sequence for encoding "UTF8": 0x00'));
    assert.equal(e.code, "BAD_REQUEST");
    assert.equal(e.status, 400);
    assert.doesNotMatch(e.message, /UTF8|0x00|byte sequence/);
  });

  it("keeps unknown database errors a 500 with the generic message", () => {
    const e = toAppError(pgError("42P01", 'relation "products" does not exist'));
    assert.equal(e.code, "INTERNAL");
    assert.doesNotMatch(e.message, /relation/);
  });
});
