import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../lib/errors.ts";
import { checkVersions, createApiVersions, type VersionSpec } from "./api-versions.ts";
import { defineVersionChange } from "./version-change.ts";

const rename = defineVersionChange({
  version: "2027-03-01",
  description: "Products: `name` is now `title`.",
  resources: { Product: ({ title, ...rest }) => ({ ...rest, name: title }) },
});
const VERSIONS: VersionSpec[] = [
  { version: "2026-11-28", changes: [], deprecation: { at: "2027-03-01", sunset: "2028-03-01" } },
  { version: "2027-03-01", changes: [rename] },
  { version: "2027-09-01", changes: [] },
];
const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "UNSUPPORTED_API_VERSION");
    return error;
  }
  assert.fail("did not refuse");
}

describe("API versions", () => {
  it("the current version is the newest released; statuses follow the dates", () => {
    const v = createApiVersions(VERSIONS);
    assert.equal(v.current(at("2026-12-01")), "2026-11-28");
    assert.deepEqual(
      v.list(at("2026-12-01")).map((x) => [x.version, x.status]),
      [["2026-11-28", "current"]],
    );
    assert.deepEqual(
      v.list(at("2027-04-01")).map((x) => [x.version, x.status]),
      [
        ["2026-11-28", "deprecated"],
        ["2027-03-01", "current"],
      ],
    );
    assert.deepEqual(
      v.list(at("2028-06-01")).map((x) => [x.version, x.status]),
      [
        ["2026-11-28", "retired"],
        ["2027-03-01", "supported"],
        ["2027-09-01", "current"],
      ],
    );
    assert.deepEqual(v.list(at("2027-04-01"))[1]!.changes, ["Products: `name` is now `title`."]);
  });

  it("resolves the header, else the pin, else the current version; never serves another silently", () => {
    const v = createApiVersions(VERSIONS);
    const now = at("2027-04-01");
    assert.equal(v.resolve(undefined, null, now), "2027-03-01");
    assert.equal(v.resolve(undefined, "2026-11-28", now), "2026-11-28");
    assert.equal(v.resolve("2026-11-28", "2027-03-01", now), "2026-11-28");
    for (const bad of ["2026-11-29", "yesterday", "2026-13-01", "", "2027-09-01"]) {
      const e = refusal(() => v.resolve(bad, null, now));
      assert.deepEqual((e.details as { supported: string[] }).supported, ["2026-11-28", "2027-03-01"]);
    }
    const later = at("2028-06-01");
    const retired = refusal(() => v.resolve("2026-11-28", null, later));
    assert.equal((retired.details as { oldestSupported: string }).oldestSupported, "2027-03-01");
    assert.match(retired.message, /retired/);
    const pinned = refusal(() => v.resolve(undefined, "2026-11-28", later));
    assert.match(pinned.message, /pinned version/);
  });

  it("the changes after a version, newest first, the same array each time", () => {
    const v = createApiVersions(VERSIONS);
    assert.deepEqual(v.changesAfter("2026-11-28"), [rename]);
    assert.equal(v.changesAfter("2026-11-28"), v.changesAfter("2026-11-28"));
    assert.deepEqual(v.changesAfter("2027-03-01"), []);
  });

  it("refuses a list out of order, a change under another version, a sunset under a year", () => {
    assert.throws(() => checkVersions([VERSIONS[1]!, VERSIONS[0]!]), /date order/);
    assert.throws(
      () =>
        checkVersions([
          { version: "2026-11-28", changes: [] },
          { version: "2026-12-01", changes: [rename] },
        ]),
      /declared under/,
    );
    assert.throws(
      () =>
        checkVersions([
          { version: "2026-11-28", changes: [], deprecation: { at: "2027-01-01", sunset: "2027-06-01" } },
        ]),
      /12 months/,
    );
    assert.throws(() => checkVersions([{ version: "26-11-28", changes: [] }]), /not a date/);
  });
});
