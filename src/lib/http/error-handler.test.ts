import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FastifyError } from "fastify";
import { toAppError, validationDetails } from "./error-handler.ts";

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

describe("toAppError: database unavailable", () => {
  it("answers every kind of database outage 503 SERVICE_UNAVAILABLE with Retry-After, without the driver's text", () => {
    const outages = [
      pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P03", "the database system is starting up"),
      pgError("53300", "sorry, too many clients already"),
      pgError("08006", "connection failure"),
      new Error("Connection terminated unexpectedly") as FastifyError,
      new Error("timeout exceeded when trying to connect") as FastifyError,
    ];
    for (const error of outages) {
      const e = toAppError(error);
      assert.equal(e.code, "SERVICE_UNAVAILABLE", error.message);
      assert.equal(e.status, 503);
      assert.match(e.headers["retry-after"] ?? "", /^[1-9]\d*$/, error.message);
      assert.doesNotMatch(e.message, /ECONN|terminat|starting|clients|timeout/i);
    }
  });
});

describe("validation details", () => {
  it("explains a failed pattern with the field's x-hint, never with the regular expression", () => {
    const details = validationDetails(
      [
        {
          instancePath: "/price",
          keyword: "pattern",
          message: 'must match pattern "^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,3})?$"',
          params: { pattern: "^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,3})?$" },
          parentSchema: { "x-hint": "an amount such as 19.99" },
        },
        { instancePath: "/code", keyword: "pattern", message: 'must match pattern "^x$"', params: {} },
        {
          instancePath: "/email",
          keyword: "format",
          message: 'must match format "email"',
          params: { format: "email" },
        },
      ],
      "body",
    );
    assert.deepEqual(details, [
      { field: "price", message: "must be an amount such as 19.99" },
      { field: "code", message: "is not in the expected format" },
      { field: "email", message: "must be a valid email" },
    ]);
  });
});
