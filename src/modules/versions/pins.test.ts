import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../lib/errors.ts";
import { createApiVersions } from "./api-versions.ts";
import { changedPin, PIN_ROLLBACK_MS, rollbackOf } from "./pins.ts";

const versions = createApiVersions([
  { version: "2026-11-28", changes: [] },
  { version: "2027-03-01", changes: [] },
  { version: "2027-09-01", changes: [] },
]);
const NOW = new Date("2027-10-01T12:00:00Z");
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error.code;
  }
  return "none";
};

describe("an app's pin", () => {
  it("is raised to any newer version served; the one before may come back within 72 hours", () => {
    const pin = { apiVersion: "2026-11-28", previous: null, changedAt: null };
    const raised = changedPin(pin, "2027-09-01", NOW, versions)!;
    assert.deepEqual(raised, { apiVersion: "2027-09-01", previous: "2026-11-28", changedAt: NOW });
    assert.deepEqual(rollbackOf(raised), {
      version: "2026-11-28",
      until: new Date(NOW.getTime() + PIN_ROLLBACK_MS),
    });
    const later = new Date(NOW.getTime() + PIN_ROLLBACK_MS);
    assert.deepEqual(changedPin(raised, "2026-11-28", later, versions)?.apiVersion, "2026-11-28");
    const tooLate = new Date(NOW.getTime() + PIN_ROLLBACK_MS + 1);
    assert.equal(
      code(() => changedPin(raised, "2026-11-28", tooLate, versions)),
      "CONFLICT",
    );
    assert.equal(
      code(() => changedPin(raised, "2027-03-01", NOW, versions)),
      "CONFLICT",
      "only the one before",
    );
    assert.equal(changedPin(raised, "2027-09-01", NOW, versions), null, "the same: nothing changes");
  });

  it("refuses a version that is not served", () => {
    const pin = { apiVersion: "2026-11-28", previous: null, changedAt: null };
    assert.equal(
      code(() => changedPin(pin, "2027-01-01", NOW, versions)),
      "UNSUPPORTED_API_VERSION",
    );
    assert.equal(
      code(() => changedPin(pin, "soon", NOW, versions)),
      "UNSUPPORTED_API_VERSION",
    );
  });
});
