import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSince } from "./since.ts";

const NOW = new Date("2026-11-26T12:00:00.000Z");

describe("CLI: --since", () => {
  it("reads a duration back from now", () => {
    assert.equal(parseSince("2h", NOW)?.toISOString(), "2026-11-26T10:00:00.000Z");
    assert.equal(parseSince("30m", NOW)?.toISOString(), "2026-11-26T11:30:00.000Z");
    assert.equal(parseSince("90s", NOW)?.toISOString(), "2026-11-26T11:58:30.000Z");
    assert.equal(parseSince("3d", NOW)?.toISOString(), "2026-11-23T12:00:00.000Z");
    assert.equal(parseSince("1w", NOW)?.toISOString(), "2026-11-19T12:00:00.000Z");
    assert.equal(parseSince("1.5h", NOW)?.toISOString(), "2026-11-26T10:30:00.000Z");
  });

  it("reads an RFC 3339 date and time with its offset", () => {
    assert.equal(parseSince("2026-11-25T08:00:00Z", NOW)?.toISOString(), "2026-11-25T08:00:00.000Z");
    assert.equal(parseSince("2026-11-25T09:00:00+01:00", NOW)?.toISOString(), "2026-11-25T08:00:00.000Z");
  });

  it("refuses anything else", () => {
    for (const bad of ["", "2", "2 hours", "h", "-2h", "yesterday", "2026-11-25", "2026-11-25T08:00:00"])
      assert.equal(parseSince(bad, NOW), null, bad);
  });
});
