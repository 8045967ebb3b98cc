import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDatabaseUnavailable } from "./availability.ts";

const withCode = (code: string, message = "x", extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra });

describe("isDatabaseUnavailable", () => {
  it("recognises the errors of a database that is down, restarting, starting or full", () => {
    const unavailable: Array<[string, unknown]> = [
      ["connection refused", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
      ["connection reset", withCode("ECONNRESET", "read ECONNRESET")],
      ["connect time-out at the socket", withCode("ETIMEDOUT")],
      ["host unreachable", withCode("EHOSTUNREACH")],
      ["name does not resolve (yet)", withCode("EAI_AGAIN", "getaddrinfo EAI_AGAIN db")],
      [
        "Unix socket gone",
        withCode("ENOENT", "connect ENOENT /run/postgresql/.s.PGSQL.5432", { syscall: "connect" }),
      ],
      ["server closed the socket mid-query", new Error("Connection terminated unexpectedly")],
      ["pg connect time-out", new Error("Connection terminated due to connection timeout")],
      ["pool acquire time-out", new Error("timeout exceeded when trying to connect")],
      [
        "client reused after it broke",
        new Error("Client has encountered a connection error and is not queryable"),
      ],
      ["08006 connection_failure", withCode("08006")],
      ["08001 cannot establish connection", withCode("08001")],
      [
        "57P01 admin shutdown (fast stop)",
        withCode("57P01", "terminating connection due to administrator command"),
      ],
      ["57P02 crash shutdown", withCode("57P02")],
      ["57P03 starting up", withCode("57P03", "the database system is starting up")],
      ["53300 too many connections", withCode("53300", "sorry, too many clients already")],
      [
        "every address refused",
        Object.assign(new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")]), {}),
      ],
      ["wrapped", new Error("query failed", { cause: withCode("57P01") })],
    ];
    for (const [what, error] of unavailable) assert.equal(isDatabaseUnavailable(error), true, what);
  });

  it("leaves faults of the request or the code alone", () => {
    const others: Array<[string, unknown]> = [
      ["unique violation", withCode("23505")],
      ["serialization failure", withCode("40001")],
      ["undefined table", withCode("42P01", 'relation "products" does not exist')],
      ["wrong password", withCode("28P01")],
      ["unknown database", withCode("3D000")],
      ["statement time-out", withCode("57014", "canceling statement due to statement timeout")],
      ["a missing file", withCode("ENOENT", "open /x", { syscall: "open" })],
      ["a coded error with a look-alike message", withCode("XX000", "Connection terminated")],
      ["a plain bug", new TypeError("Cannot read properties of undefined")],
      ["not an error", "ECONNREFUSED"],
      ["nothing", null],
    ];
    for (const [what, error] of others) assert.equal(isDatabaseUnavailable(error), false, what);
  });
});
