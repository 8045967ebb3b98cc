import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVENT, EVENT_NAMES, EVENT_SCOPES, ID_PREFIX } from "../../../contracts/index.ts";
import { LISTEN_RESUME_WINDOW } from "../../../contracts/limits.ts";
import { Scope } from "../../../contracts/scopes.ts";
import { AppError } from "../../../lib/errors.ts";
import { chooseEvents, parseLastEventId, resumePosition } from "./listen-service.ts";

const SESSION = `${ID_PREFIX.listenSession}_${"a".repeat(22)}`;

describe("listen: Last-Event-ID", () => {
  it("names a session and a feed position; none sent is a new session", () => {
    assert.deepEqual(parseLastEventId(`${SESSION}.42`), { sessionId: SESSION, from: 42 });
    assert.equal(parseLastEventId(undefined), null);
    assert.equal(parseLastEventId(""), null);
  });

  it("anything else is a 400-class validation error, never a lookup", () => {
    for (const bad of [
      SESSION,
      `${SESSION}.`,
      `${SESSION}.-1`,
      `${SESSION}.1234567890123456`,
      "whs_x.1",
      `${SESSION}.1 `,
    ])
      assert.throws(
        () => parseLastEventId(bad),
        (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED",
        bad,
      );
  });
});

describe("listen: where a resume starts", () => {
  const session = { position: 5000, start_position: 100 };
  it("after the id the client sent, within what the session streamed", () => {
    assert.equal(resumePosition(4500, session), 4500);
    assert.equal(resumePosition(9000, session), 5000, "never past what it streamed");
  });
  it("never more than LISTEN_RESUME_WINDOW back, never before the session began", () => {
    assert.equal(resumePosition(0, session), 5000 - LISTEN_RESUME_WINDOW);
    assert.equal(resumePosition(0, { position: 300, start_position: 100 }), 100);
  });
});

describe("listen: the events a new session carries", () => {
  const scopes = [Scope.read_orders];
  it("by default every event the scopes allow, those that need no scope included", () => {
    const chosen = chooseEvents(undefined, { scopes });
    assert.deepEqual(
      chosen,
      EVENT_NAMES.filter((e) => !EVENT_SCOPES[e] || EVENT_SCOPES[e] === Scope.read_orders),
    );
    assert.ok(chosen.includes(EVENT.appUninstalled));
    assert.ok(!chosen.includes(EVENT.productCreated));
  });

  it("the names asked for, once each, plus app/uninstalled (how a stream learns it ended)", () => {
    assert.deepEqual(chooseEvents(` ${EVENT.orderCreated},${EVENT.orderCreated},, `, { scopes }), [
      EVENT.orderCreated,
      EVENT.appUninstalled,
    ]);
  });

  it("an unknown name, or none, is a validation error; one beyond the scopes is INSUFFICIENT_SCOPE", () => {
    const code = (f: () => unknown) => {
      try {
        f();
        return null;
      } catch (e) {
        return (e as AppError).code;
      }
    };
    assert.equal(
      code(() => chooseEvents("order.nope", { scopes })),
      "VALIDATION_FAILED",
    );
    assert.equal(
      code(() => chooseEvents(" , ", { scopes })),
      "VALIDATION_FAILED",
    );
    assert.equal(
      code(() => chooseEvents(EVENT.productCreated, { scopes })),
      "INSUFFICIENT_SCOPE",
    );
  });
});
